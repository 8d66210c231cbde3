#pragma once
// Reads the safetensors headers of a Hub checkpoint with Range requests: 8 bytes, then exactly the
// header, per file, every file of a round in parallel. Tensor data is never requested.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/cache.hpp"
#include "hub/errors.hpp"
#include "hub/http.hpp"

namespace neurarch::hub {

class Progress;

struct RemoteCheckpoint {
  std::vector<StandIn> files;              ///< empty: the repo has no safetensors checkpoint
  std::optional<std::string> index_text;   ///< model.safetensors.index.json when sharded
};

struct RemoteFiles {
  HttpClient& http;
  Progress& progress;
  std::function<std::string(const std::string&)> url_of;  ///< file name -> resolve URL pinned to the commit
  FetchContext context;
};

/// `single_prefix`: the answer to a Range 0-7 request for model.safetensors, `index`: the answer
/// for model.safetensors.index.json, both already fetched (in one round with the model info).
/// A single file wins over an index, as in transformers.
RemoteCheckpoint fetch_checkpoint(RemoteFiles& remote, const Response& single_prefix, const Response& index);

/// Decodes the little-endian header length of a safetensors prefix.
std::uint64_t safetensors_header_length(const std::string& prefix);

}  // namespace neurarch::hub
