// libFuzzer target: the input is a whole safetensors file (its size is the file size) and, separately, an
// index.json. Beyond "no crash", it checks the promises callers rely on when parsing succeeds.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "checkpoint/safetensors.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_accepted(const neurarch::checkpoint::Checkpoint& ck, std::uint64_t file_size) {
  check(ck.header_bytes_read <= file_size);
  const std::uint64_t data_bytes = file_size - ck.header_bytes_read;
  std::int64_t total = 0;
  std::uint64_t previous_end = 0;
  for (const auto& t : ck.tensors) {
    check(t.begin <= t.end && t.end <= data_bytes && previous_end <= t.begin);
    check(t.end - t.begin ==
          static_cast<std::uint64_t>(t.scalars()) * static_cast<std::uint64_t>(neurarch::dtype_bytes(t.dtype)));
    previous_end = t.end;
    total += t.scalars();
  }
  check(total == ck.total_scalars && total <= neurarch::limits::kMaxScalars);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    check_accepted(neurarch::checkpoint::parse_safetensors_header(input, size, "fuzz.safetensors"), size);
  } catch (const neurarch::Error& e) {
    check(std::strchr(e.what(), '\n') == nullptr);  // messages are promised to be one line
  }
  try {
    (void)neurarch::checkpoint::parse_safetensors_index(input, "fuzz.index.json");
  } catch (const neurarch::Error& e) {
    check(std::strchr(e.what(), '\n') == nullptr);
  }
  return 0;
}
