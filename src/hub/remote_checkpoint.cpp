#include "hub/remote_checkpoint.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "checkpoint/safetensors.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "hub/progress.hpp"

namespace neurarch::hub {
namespace {

constexpr std::uint64_t kPrefixBytes = 8;
constexpr std::string_view kSingleName = "model.safetensors";
// One request per shard; the largest public checkpoints have a few hundred shards.
constexpr std::size_t kMaxShards = 10'000;

std::string where(const FetchContext& ctx, const std::string& file) { return ctx.repo + "@" + ctx.revision + ":" + file; }

FetchContext for_file(const FetchContext& ctx, const std::string& file) {
  FetchContext out = ctx;
  out.file = file;
  return out;
}

std::string etag_of(const Response& r) {
  std::string etag = r.header("x-linked-etag").value_or(r.header("etag").value_or(""));
  if (etag.starts_with("W/")) etag.erase(0, 2);
  etag.erase(std::remove(etag.begin(), etag.end(), '"'), etag.end());
  return etag;
}

struct Prefix {
  std::string bytes;
  std::uint64_t file_size = 0;
  std::uint64_t header_length = 0;
  std::string etag;
  std::string url;  // where the prefix came from after redirects: the header comes from there too
};

Prefix checked_prefix(const Response& r, const FetchContext& ctx, const std::string& name) {
  const auto size = r.file_size();
  if (!size) throw Error(ErrorKind::InvalidInput, where(ctx, name), "the Hub did not say how large the file is");
  if (r.body.size() != kPrefixBytes) {
    throw Error(ErrorKind::InvalidInput, where(ctx, name),
                fmt::format("expected the 8-byte safetensors prefix, got {} byte(s)", r.body.size()));
  }
  Prefix p{r.body, *size, safetensors_header_length(r.body), etag_of(r), r.effective_url};
  if (p.header_length == 0 || p.header_length > limits::kMaxSafetensorsHeaderBytes ||
      p.header_length > p.file_size - std::min(p.file_size, kPrefixBytes)) {
    throw Error(ErrorKind::InvalidInput, where(ctx, name),
                fmt::format("header length {} is impossible for a {}-byte safetensors file (limit {} bytes)",
                            p.header_length, p.file_size, limits::kMaxSafetensorsHeaderBytes));
  }
  return p;
}

// Fetches the header bytes after each prefix and checks them as the local reader would.
std::vector<StandIn> fetch_headers(RemoteFiles& remote, const std::vector<std::string>& names,
                                   const std::vector<Prefix>& prefixes) {
  std::vector<Request> requests;
  for (std::size_t i = 0; i < names.size(); ++i) {
    // Straight to the CDN the resolve URL redirected to: one round trip less per header.
    const auto len = prefixes[i].header_length;
    const std::string resolve_url = remote.url_of(names[i]);
    const std::string url = prefixes[i].url.empty() ? resolve_url : prefixes[i].url;
    requests.push_back({url, ByteRange{kPrefixBytes, kPrefixBytes + len - 1}, len, origin_of(url) == origin_of(resolve_url)});
  }
  remote.progress.stage("safetensors headers", names.size());
  const auto responses = remote.http.get_all(requests);
  std::vector<StandIn> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Response& r = responses[i];
    const FetchContext ctx = for_file(remote.context, names[i]);
    if (check(r, ctx) != Failure::None) {
      throw Error(ErrorKind::NotFound, where(ctx, names[i]), "vanished between two requests; try again");
    }
    if (r.body.size() != prefixes[i].header_length) {
      throw Error(ErrorKind::InvalidInput, where(ctx, names[i]),
                  fmt::format("header truncated: {} of {} bytes arrived", r.body.size(), prefixes[i].header_length));
    }
    StandIn s{names[i], prefixes[i].bytes + r.body, prefixes[i].file_size, prefixes[i].etag};
    checkpoint::parse_safetensors_header(s.bytes, s.size, names[i]);  // the error names the file
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> shard_names(const std::string& index_text, const FetchContext& ctx) {
  const auto weight_map = checkpoint::parse_safetensors_index(index_text, where(ctx, std::string(kIndexName)));
  std::set<std::string> unique;
  for (const auto& [tensor, file] : weight_map) unique.insert(file);
  if (unique.size() > kMaxShards) {
    throw Error(ErrorKind::InvalidInput, where(ctx, std::string(kIndexName)),
                fmt::format("lists {} shards, more than the {} neurarch reads", unique.size(), kMaxShards));
  }
  return {unique.begin(), unique.end()};
}

}  // namespace

std::uint64_t safetensors_header_length(const std::string& prefix) {
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < kPrefixBytes && i < prefix.size(); ++i)  // little-endian regardless of the host
    length |= std::uint64_t{static_cast<unsigned char>(prefix[i])} << (8 * i);
  return length;
}

RemoteCheckpoint fetch_checkpoint(RemoteFiles& remote, const Response& single_prefix, const Response& index) {
  RemoteCheckpoint out;
  const std::string single(kSingleName);
  if (check(single_prefix, for_file(remote.context, single)) == Failure::None) {
    out.files = fetch_headers(remote, {single}, {checked_prefix(single_prefix, remote.context, single)});
    return out;
  }
  const FetchContext index_ctx = for_file(remote.context, std::string(kIndexName));
  if (check(index, index_ctx) != Failure::None) return out;  // no safetensors checkpoint: not an error
  const auto names = shard_names(index.body, index_ctx);
  if (names.empty()) return out;

  std::vector<Request> requests;
  for (const auto& name : names) requests.push_back({remote.url_of(name), ByteRange{0, kPrefixBytes - 1}, kPrefixBytes});
  remote.progress.stage("safetensors prefixes", names.size());
  const auto responses = remote.http.get_all(requests);
  std::vector<Prefix> prefixes;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const FetchContext ctx = for_file(remote.context, names[i]);
    if (check(responses[i], ctx) != Failure::None) {
      throw Error(ErrorKind::NotFound, where(ctx, names[i]),
                  fmt::format("{} lists this shard, but the repo does not have it", kIndexName));
    }
    prefixes.push_back(checked_prefix(responses[i], ctx, names[i]));
  }
  out.files = fetch_headers(remote, names, prefixes);
  out.index_text = index.body;
  return out;
}

}  // namespace neurarch::hub
