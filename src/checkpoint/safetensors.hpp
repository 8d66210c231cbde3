#pragma once
// Reads the *headers* of safetensors checkpoints: tensor names, dtypes, shapes and byte ranges.
// Tensor data is never read, so inspecting a 100 GB checkpoint costs a few megabytes of I/O.
// Every input is treated as hostile: all failures are neurarch::Error, never a crash or a hang.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace neurarch::checkpoint {

struct CheckpointTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // relative to the start of the data section, as in the file
  std::string file;                  // file name (no directory) of the file holding the tensor
  std::int64_t scalars() const;
};

struct Checkpoint {
  // Ordered by position in the data section (begin, end, name); for shards, shard order first.
  std::vector<CheckpointTensor> tensors;
  std::vector<std::string> files;               // shard file names read, in order
  std::map<std::string, std::string> metadata;  // __metadata__ of the (first) file
  std::int64_t total_scalars = 0;
  std::uint64_t header_bytes_read = 0;  // 8 + header length per file: proves data was not read
  const CheckpointTensor* find(std::string_view name) const;
};

/// Parses the 8-byte length prefix plus the JSON header. Bytes beyond 8 + header length are
/// ignored; `file_size` is the whole file's size, which offsets are checked against.
/// `source` (a file name) prefixes error locations.
Checkpoint parse_safetensors_header(std::string_view prefix_and_header, std::uint64_t file_size,
                                    std::string_view source);

/// Reads exactly the prefix and the header of one file.
Checkpoint read_safetensors_file(const std::filesystem::path& file);

/// weight_map (tensor name -> shard file name) of a model.safetensors.index.json.
/// Shard names must be plain file names, so an index cannot point outside its folder.
std::map<std::string, std::string> parse_safetensors_index(std::string_view json_text, std::string_view source);

/// model.safetensors.index.json and its shards if present, else every *.safetensors (sorted by
/// name), else nullopt. An index and its shards must agree tensor for tensor.
/// Throws ErrorKind::NotFound when `dir` is not a directory or a listed shard is missing.
std::optional<Checkpoint> read_checkpoint_dir(const std::filesystem::path& dir);

}  // namespace neurarch::checkpoint
