#include "checkpoint/safetensors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
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

// Rethrows a parser error with its concrete type, as nlohmann's own DOM parser does, so that
// parse_or_fail's handler sees the same parse_error / out_of_range.
struct RethrowErrors {
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;
  }
};

// Builds the DOM in the same single pass that checks top-level keys: nlohmann keeps the last of
// duplicate keys, and a header naming a tensor twice is ambiguous. The root object is built in
// place, so a top-level key is a duplicate exactly when the root already holds it (no extra set,
// no second parse). The error waits for the end of the parse, so invalid JSON is reported first.
class DomWithTopLevelKeys : public RethrowErrors {
 public:
  using string_t = json::string_t;
  explicit DomWithTopLevelKeys(json& root) : root_(root), dom_(root) {}
  bool key(string_t& k) {
    if (depth_ == 1 && !duplicate_ && root_.contains(k)) duplicate_ = k;
    return dom_.key(k);
  }
  bool start_object(std::size_t n) { return ++depth_, dom_.start_object(n); }
  bool end_object() { return --depth_, dom_.end_object(); }
  bool start_array(std::size_t n) { return ++depth_, dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  bool null() { return dom_.null(); }
  bool boolean(bool b) { return dom_.boolean(b); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const string_t& s) { return dom_.number_float(v, s); }
  bool string(string_t& s) { return dom_.string(s); }
  bool binary(json::binary_t& b) { return dom_.binary(b); }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  json& root_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0;
  std::optional<std::string> duplicate_;
};

// Translates nlohmann's exceptions into our error, pointing at the file offset (`base` is where
// the text starts in its file).
template <class Parse>
void parse_or_fail(Parse&& parse, std::string_view source, std::uint64_t base) {
  try {
    parse();
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

// Collects an index's weight_map straight into the result instead of building a DOM of 100k
// entries and copying it. It mirrors what the DOM would hold (nlohmann keeps the last of
// duplicate keys, at either level), and all checks run after the parse, as with the DOM, so
// invalid JSON is still reported before any other problem.
class IndexWeightMap : public RethrowErrors {
 public:
  using string_t = json::string_t;
  enum class Kind { Missing, Object, Other };

  bool start_object(std::size_t) { return value(Kind::Object, "object"), ++depth_, true; }
  bool end_object() { return --depth_, true; }
  bool start_array(std::size_t) { return value(Kind::Other, "array"), ++depth_, true; }
  bool end_array() { return --depth_, true; }
  bool key(string_t& k) {
    if (depth_ == 1) in_weight_map_ = k == "weight_map";
    // Copied, not moved: moving would steal the lexer's token buffer, which then regrows for every token.
    if (is_entry()) key_.assign(k);
    return true;
  }
  bool string(string_t& s) {
    if (!is_entry()) return value(Kind::Other, "string"), true;
    non_strings.erase(key_);
    // Indexes list their tensors sorted (nlohmann and Python write them so): hinting at the end
    // makes each insert O(1) then, and costs nothing otherwise.
    map.insert_or_assign(map.end(), key_, std::string(s));
    return true;
  }
  bool null() { return value(Kind::Other, "null"), true; }
  bool boolean(bool) { return value(Kind::Other, "boolean"), true; }
  bool number_integer(json::number_integer_t) { return value(Kind::Other, "number"), true; }
  bool number_unsigned(json::number_unsigned_t) { return value(Kind::Other, "number"), true; }
  bool number_float(json::number_float_t, const string_t&) { return value(Kind::Other, "number"), true; }
  bool binary(json::binary_t&) { return value(Kind::Other, "binary"), true; }

  const char* root_type = "null";           // json::type_name() of the whole document
  Kind weight_map = Kind::Missing;          // what the (last) top-level "weight_map" holds
  std::map<std::string, std::string> map;   // its entries whose value is a string
  std::set<std::string> non_strings;        // its entries whose value is anything else

 private:
  // An entry of the weight_map object: a value directly inside it.
  bool is_entry() const { return depth_ == 2 && in_weight_map_ && weight_map == Kind::Object; }
  // Every value except a string entry of weight_map comes here, objects and arrays on their start.
  void value(Kind kind, const char* type_name) {
    if (depth_ == 0) {
      root_type = type_name;
    } else if (depth_ == 1 && in_weight_map_) {
      weight_map = kind;  // a repeated "weight_map" replaces the earlier one
      map.clear();
      non_strings.clear();
    } else if (is_entry()) {
      map.erase(key_);
      non_strings.insert(std::move(key_));
    }
  }

  int depth_ = 0;
  bool in_weight_map_ = false;
  std::string key_;
};

json parse_header_json(std::string_view text, std::string_view source, std::uint64_t base) {
  json header;
  DomWithTopLevelKeys sax(header);
  parse_or_fail([&] { json::sax_parse(text.begin(), text.end(), &sax); }, source, base);
  if (sax.duplicate()) fail(tensor_at(source, *sax.duplicate()), "appears twice in the header");
  return header;
}

// Where an entry's error is reported; formatted only on failure, as 100k-tensor headers are common.
struct TensorWhere {
  std::string_view source;
  const std::string& name;
  operator std::string() const { return tensor_at(source, name); }
};

std::int64_t parse_shape(const json& shape, std::vector<std::int64_t>& dims, const TensorWhere& where) {
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
  const TensorWhere where{source, name};
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

template <class Where>
void add_scalars(std::int64_t& total, std::int64_t more, const Where& where) {
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
    add_scalars(into.total_scalars, tensor.scalars(), TensorWhere{tensor.file, tensor.name});
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

  const json header = parse_header_json(text, source, kPrefixBytes);
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
    add_scalars(out.total_scalars, out.tensors.back().scalars(), TensorWhere{source, name});
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
  IndexWeightMap sax;
  parse_or_fail([&] { json::sax_parse(json_text.begin(), json_text.end(), &sax); }, source, 0);
  if (std::string_view(sax.root_type) != "object")
    fail(at(source, 0), fmt::format("index is not an object (found {})", sax.root_type));
  const std::string where = fmt::format("{}: weight_map", source);
  if (sax.weight_map == IndexWeightMap::Kind::Missing) fail(where, "is missing");
  if (sax.weight_map != IndexWeightMap::Kind::Object) fail(where, "is not an object");
  if (sax.map.empty() && sax.non_strings.empty()) fail(where, "is empty");

  // The first bad entry in name order, as a walk over the sorted DOM would find it.
  const auto bad_file = std::find_if(sax.map.begin(), sax.map.end(),
                                     [](const auto& entry) { return !is_plain_file_name(entry.second); });
  const std::string* non_string = sax.non_strings.empty() ? nullptr : &*sax.non_strings.begin();
  if (non_string && (bad_file == sax.map.end() || *non_string < bad_file->first))
    fail(tensor_at(source, *non_string), "shard name is not a string");
  if (bad_file != sax.map.end())
    fail(tensor_at(source, bad_file->first),
         fmt::format("shard '{}' is not a plain file name", printable(bad_file->second)));
  return std::move(sax.map);
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
