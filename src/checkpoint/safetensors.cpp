#include "checkpoint/safetensors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>
#include <utility>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace neurarch::checkpoint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kPrefixBytes = 8;
constexpr std::string_view kIndexName = "model.safetensors.index.json";

// Names and parser messages come from the file; keep error messages one short printable line.
std::string printable(std::string_view text, std::size_t max_bytes = 120) {
  std::string out;
  for (char c : text.substr(0, max_bytes)) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7f) ? fmt::format("\\x{:02x}", byte) : std::string(1, c);
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

[[noreturn]] void fail(std::string where, const std::string& message) {
  throw Error(ErrorKind::InvalidInput, std::move(where), message);
}

std::string at(std::string_view source, std::uint64_t offset) { return fmt::format("{}@{}", source, offset); }

std::string tensor_at(std::string_view source, std::string_view name) {
  return fmt::format("{}: tensor '{}'", source, printable(name));
}

// Validates the length prefix before anything is allocated for the header.
std::uint64_t header_length(std::string_view prefix, std::uint64_t file_size, std::string_view source) {
  if (prefix.size() < kPrefixBytes || file_size < kPrefixBytes)
    fail(at(source, 0), fmt::format("file is {} bytes, too short for the 8-byte header length",
                                    std::min<std::uint64_t>(prefix.size(), file_size)));
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < kPrefixBytes; ++i)  // little-endian regardless of the host
    length |= std::uint64_t{static_cast<unsigned char>(prefix[i])} << (8 * i);
  if (length == 0) fail(at(source, 0), "header length is 0");
  if (length > limits::kMaxSafetensorsHeaderBytes)
    fail(at(source, 0),
         fmt::format("header length {} exceeds the {} byte limit", length, limits::kMaxSafetensorsHeaderBytes));
  if (length > file_size - kPrefixBytes)
    fail(at(source, 0), fmt::format("header length {} runs past the end of the {}-byte file", length, file_size));
  return length;
}

// `base` is where `text` starts in its file, so the reported offset points into the file.
json parse_json(std::string_view text, std::string_view source, std::uint64_t base) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // nlohmann's message embeds the offending token, which can be megabytes long; keep the reason.
    std::string_view reason = e.what();
    if (auto tag = reason.find("] "); tag != std::string_view::npos) reason.remove_prefix(tag + 2);
    if (auto column = reason.find("column "); column != std::string_view::npos)
      if (auto colon = reason.find(": ", column); colon != std::string_view::npos) reason.remove_prefix(colon + 2);
    reason = reason.substr(0, reason.find("; last read"));
    // Only parse_error knows where it stopped; out_of_range (a number such as 1e999) does not.
    const auto* parse_error = dynamic_cast<const json::parse_error*>(&e);
    const std::uint64_t offset = base + (parse_error && parse_error->byte > 0 ? parse_error->byte - 1 : 0);
    fail(at(source, offset), "not valid JSON: " + printable(reason));
  }
}

// nlohmann keeps the last of duplicate keys, and a header naming a tensor twice is ambiguous.
// A SAX pass over the (already validated) text sees every top-level key; nlohmann's parser
// callbacks would do the same in quadratic time.
class TopLevelKeys : public nlohmann::json_sax<json> {
 public:
  explicit TopLevelKeys(std::string_view source) : source_(source) {}
  bool key(string_t& k) override {
    if (depth_ == 1 && !seen_.insert(k).second) fail(tensor_at(source_, k), "appears twice in the header");
    return true;
  }
  bool start_object(std::size_t) override { return ++depth_, true; }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override { return ++depth_, true; }
  bool end_array() override { return --depth_, true; }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::string_view source_;
  int depth_ = 0;
  std::unordered_set<std::string> seen_;
};

void reject_duplicate_keys(std::string_view text, std::string_view source) {
  TopLevelKeys keys(source);
  json::sax_parse(text.begin(), text.end(), &keys);
}

std::int64_t parse_shape(const json& shape, std::vector<std::int64_t>& dims, const std::string& where) {
  if (!shape.is_array()) fail(where, "shape is not a list");
  bool empty = false;
  for (const json& dim : shape) {
    if (!dim.is_number_integer()) fail(where, "shape holds a non-integer");
    if (!dim.is_number_unsigned() && dim.get<std::int64_t>() < 0)
      fail(where, fmt::format("negative dimension {}", dim.get<std::int64_t>()));
    const auto value = dim.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(limits::kMaxScalars))
      fail(where, fmt::format("dimension {} exceeds the {} scalar limit", value, limits::kMaxScalars));
    dims.push_back(static_cast<std::int64_t>(value));
    empty = empty || value == 0;
  }
  if (empty) return 0;
  std::int64_t product = 1;
  for (std::int64_t dim : dims) {
    // Both factors are <= kMaxScalars, so dividing first cannot overflow.
    if (product > limits::kMaxScalars / dim) fail(where, "shape has more than 2^40 scalars");
    product *= dim;
  }
  return product;
}

CheckpointTensor parse_entry(const std::string& name, const json& entry, std::string_view source,
                             std::uint64_t data_bytes) {
  const std::string where = tensor_at(source, name);
  if (!entry.is_object()) fail(where, fmt::format("entry is not an object (found {})", entry.type_name()));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(key)) fail(where, fmt::format("entry has no '{}'", key));

  CheckpointTensor tensor;
  tensor.name = name;
  tensor.file = std::string(source);
  const json& dtype = entry["dtype"];
  if (!dtype.is_string()) fail(where, "dtype is not a string");
  const auto parsed = dtype_from_safetensors(dtype.get_ref<const std::string&>());
  if (!parsed) fail(where, fmt::format("unknown dtype '{}'", printable(dtype.get_ref<const std::string&>())));
  tensor.dtype = *parsed;
  const int width = dtype_bytes(tensor.dtype);
  if (width <= 0) fail(where, fmt::format("dtype {} has no whole-byte width", dtype_name(tensor.dtype)));

  const std::int64_t scalars = parse_shape(entry["shape"], tensor.shape, where);

  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail(where, "data_offsets is not two non-negative integers");
  tensor.begin = offsets[0].get<std::uint64_t>();
  tensor.end = offsets[1].get<std::uint64_t>();
  if (tensor.begin > tensor.end)
    fail(where, fmt::format("data_offsets [{}, {}] are descending", tensor.begin, tensor.end));
  if (tensor.end > data_bytes)
    fail(where,
         fmt::format("data_offsets [{}, {}] run past the {}-byte data section", tensor.begin, tensor.end, data_bytes));
  // scalars <= 2^40 and width <= 8, so the product fits easily.
  const auto expected = static_cast<std::uint64_t>(scalars) * static_cast<std::uint64_t>(width);
  if (tensor.end - tensor.begin != expected)
    fail(where,
         fmt::format("data_offsets span {} bytes but shape and dtype need {}", tensor.end - tensor.begin, expected));
  return tensor;
}

std::map<std::string, std::string> parse_metadata(const json& metadata, std::string_view source) {
  const std::string where = fmt::format("{}: __metadata__", source);
  if (!metadata.is_object()) fail(where, "is not an object");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : metadata.items()) {
    if (!value.is_string()) fail(where, fmt::format("value of '{}' is not a string", printable(key)));
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

// Sorting by position puts any overlap between neighbours, so one linear pass finds it.
void sort_and_check_overlap(std::vector<CheckpointTensor>& tensors, std::string_view source) {
  std::sort(tensors.begin(), tensors.end(), [](const CheckpointTensor& a, const CheckpointTensor& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  for (std::size_t i = 1; i < tensors.size(); ++i) {
    const auto& prev = tensors[i - 1];
    const auto& cur = tensors[i];
    if (prev.end > cur.begin)
      fail(tensor_at(source, cur.name), fmt::format("data_offsets [{}, {}] overlap tensor '{}' at [{}, {}]", cur.begin,
                                                    cur.end, printable(prev.name), prev.begin, prev.end));
  }
}

void add_scalars(std::int64_t& total, std::int64_t more, const std::string& where) {
  if (more > limits::kMaxScalars - total) fail(where, "checkpoint holds more than 2^40 scalars");
  total += more;
}

// Index shard names come from the file; a path would let it make us read outside the folder.
bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

std::string read_small_file(const fs::path& path, std::uint64_t max_bytes) {
  const std::string source = path.filename().string();
  std::error_code ec;
  const std::uint64_t size = fs::file_size(path, ec);
  if (ec) throw Error(ErrorKind::Io, source, ec.message());
  if (size > max_bytes) fail(source, fmt::format("file is {} bytes, over the {} byte limit", size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  std::string text(size, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(size)))
    throw Error(ErrorKind::Io, source, "could not read the file");
  return text;
}

// Appends one file's tensors; names must be unique across the whole checkpoint.
void merge(Checkpoint& into, Checkpoint&& part, std::map<std::string, std::string>& owner) {
  for (auto& tensor : part.tensors) {
    const auto [it, inserted] = owner.emplace(tensor.name, tensor.file);
    if (!inserted)
      fail(tensor_at(tensor.file, tensor.name), fmt::format("also present in '{}'", printable(it->second)));
    add_scalars(into.total_scalars, tensor.scalars(), tensor_at(tensor.file, tensor.name));
    into.tensors.push_back(std::move(tensor));
  }
  if (into.files.empty()) into.metadata = std::move(part.metadata);
  into.files.insert(into.files.end(), part.files.begin(), part.files.end());
  into.header_bytes_read += part.header_bytes_read;
}

Checkpoint read_indexed(const fs::path& dir) {
  const auto weight_map =
      parse_safetensors_index(read_small_file(dir / kIndexName, limits::kMaxIndexBytes), kIndexName);
  std::set<std::string> shards;
  for (const auto& [name, shard] : weight_map) shards.insert(shard);

  Checkpoint out;
  std::map<std::string, std::string> owner;
  for (const std::string& shard : shards) {
    const fs::path path = dir / shard;
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw Error(ErrorKind::NotFound, std::string(kIndexName),
                  fmt::format("shard '{}' does not exist", printable(shard)));
    Checkpoint part = read_safetensors_file(path);
    for (const auto& tensor : part.tensors) {
      const auto listed = weight_map.find(tensor.name);
      if (listed == weight_map.end())
        fail(tensor_at(shard, tensor.name), fmt::format("is in the shard but not listed in {}", kIndexName));
      if (listed->second != shard)
        fail(tensor_at(shard, tensor.name),
             fmt::format("is in this shard but {} places it in '{}'", kIndexName, printable(listed->second)));
    }
    merge(out, std::move(part), owner);
  }
  for (const auto& [name, shard] : weight_map)
    if (!owner.contains(name))
      fail(tensor_at(shard, name), fmt::format("listed in {} but absent from the shard", kIndexName));
  return out;
}

}  // namespace

std::int64_t CheckpointTensor::scalars() const {
  std::int64_t product = 1;
  for (std::int64_t dim : shape) product *= dim;
  return product;
}

const CheckpointTensor* Checkpoint::find(std::string_view name) const {
  for (const auto& tensor : tensors)
    if (tensor.name == name) return &tensor;
  return nullptr;
}

Checkpoint parse_safetensors_header(std::string_view prefix_and_header, std::uint64_t file_size,
                                    std::string_view source) {
  const std::uint64_t length = header_length(prefix_and_header, file_size, source);
  if (prefix_and_header.size() - kPrefixBytes < length)
    fail(at(source, prefix_and_header.size()),
         fmt::format("header of {} bytes is truncated after {}", length, prefix_and_header.size() - kPrefixBytes));
  const std::string_view text = prefix_and_header.substr(kPrefixBytes, length);

  const json header = parse_json(text, source, kPrefixBytes);
  reject_duplicate_keys(text, source);
  if (!header.is_object())
    fail(at(source, kPrefixBytes), fmt::format("header is not an object (found {})", header.type_name()));

  Checkpoint out;
  out.files.emplace_back(source);
  out.header_bytes_read = kPrefixBytes + length;
  const std::uint64_t data_bytes = file_size - kPrefixBytes - length;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      out.metadata = parse_metadata(entry, source);
      continue;
    }
    out.tensors.push_back(parse_entry(name, entry, source, data_bytes));
    add_scalars(out.total_scalars, out.tensors.back().scalars(), tensor_at(source, name));
  }
  sort_and_check_overlap(out.tensors, source);
  return out;
}

Checkpoint read_safetensors_file(const fs::path& file) {
  const std::string source = file.filename().string();
  std::error_code ec;
  const auto status = fs::status(file, ec);
  if (!fs::exists(status)) throw Error(ErrorKind::NotFound, source, "file does not exist");
  if (!fs::is_regular_file(status)) fail(source, "not a regular file");
  const std::uint64_t size = fs::file_size(file, ec);
  if (ec) throw Error(ErrorKind::Io, source, ec.message());
  // Unbuffered, so the OS is asked for exactly 8 + header bytes; a buffered stream would prefetch data.
  std::ifstream in;
  in.rdbuf()->pubsetbuf(nullptr, 0);
  in.open(file, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, source, "cannot open the file");

  std::string bytes(kPrefixBytes, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(kPrefixBytes));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  const std::uint64_t length = header_length(bytes, size, source);
  bytes.resize(kPrefixBytes + length);
  in.read(bytes.data() + kPrefixBytes, static_cast<std::streamsize>(length));
  if (static_cast<std::uint64_t>(in.gcount()) != length)
    throw Error(ErrorKind::Io, at(source, kPrefixBytes), "file ended while reading the header");
  return parse_safetensors_header(bytes, size, source);
}

std::map<std::string, std::string> parse_safetensors_index(std::string_view json_text, std::string_view source) {
  if (json_text.size() > limits::kMaxIndexBytes)
    fail(std::string(source),
         fmt::format("index is {} bytes, over the {} byte limit", json_text.size(), limits::kMaxIndexBytes));
  const json index = parse_json(json_text, source, 0);
  if (!index.is_object()) fail(at(source, 0), fmt::format("index is not an object (found {})", index.type_name()));
  const auto weight_map = index.find("weight_map");
  const std::string where = fmt::format("{}: weight_map", source);
  if (weight_map == index.end()) fail(where, "is missing");
  if (!weight_map->is_object()) fail(where, "is not an object");
  if (weight_map->empty()) fail(where, "is empty");

  std::map<std::string, std::string> out;
  for (const auto& [name, shard] : weight_map->items()) {
    if (!shard.is_string()) fail(tensor_at(source, name), "shard name is not a string");
    const auto& file = shard.get_ref<const std::string&>();
    if (!is_plain_file_name(file))
      fail(tensor_at(source, name), fmt::format("shard '{}' is not a plain file name", printable(file)));
    out.emplace(name, file);
  }
  return out;
}

std::optional<Checkpoint> read_checkpoint_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ErrorKind::NotFound, dir.string(), "not a directory");
  if (fs::is_regular_file(dir / kIndexName, ec)) return read_indexed(dir);

  std::vector<fs::path> files;
  // error_code overloads so an unreadable folder is an Error, not a filesystem_error; a dangling
  // link gets its own code because skipping it is right.
  std::error_code entry_ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".safetensors" && it->is_regular_file(entry_ec)) files.push_back(it->path());
  if (ec) throw Error(ErrorKind::Io, dir.string(), ec.message());
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end());

  Checkpoint out;
  std::map<std::string, std::string> owner;
  for (const auto& file : files) merge(out, read_safetensors_file(file), owner);
  return out;
}

}  // namespace neurarch::checkpoint
