// FNet's token mixing: the real part of a 2-D FFT over the hidden and then the sequence axis, with no parameters.
#include <algorithm>
#include <cmath>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// fftn is linear, so its backward needs nothing saved, and .real is a view: the mixer keeps nothing. Autocast has no
// rule for the FFT ops: they run in the input's dtype.
int fourier_mixer_saved(OpContext&, const OpInput& x, NodeActivations&) { return x.in_bytes; }

// fftn over the last two axes [seq, hidden]: an FFT of length hidden for every token, then one of length seq for
// every channel, on complex data. A complex FFT of N points costs about 5 N log2 N real FLOPs (the radix-2 count
// FFTW's benchmarks report speed by: "mflops = 5 N log2(N) / time", http://www.fftw.org/speed/method.html), so the
// pair costs 5 S H (log2 H + log2 S) = 5 S H log2(S H). The input being real (an r2c first pass) would halve part
// of it; this keeps the complex count. The transform is linear: backward is one transform of the same size, and
// nothing else. Memory traffic: the complex64 result (8 bytes a point) is written before its real part is read on;
// it lives only until the residual sum has read that part.
OpWork fourier_mixer_work(const OpCostInput& x) {
  const auto& out = x.node.out;
  if (out.size() < 2) return {};
  const double seq = static_cast<double>(out[out.size() - 2]), width = static_cast<double>(out.back());
  const double lead = x.output_elements / std::max(seq * width, 1.0);  // 1 unless the graph batches inside
  const double core = seq * width > 1 ? 5.0 * lead * seq * width * std::log2(seq * width) : 0.0;
  return {.flops_forward = core, .flops_backward = core, .traffic_bytes = x.output_elements * 8.0};
}

}  // namespace

const OpSchema fourier_mixer_op{.matmul = false, .saved = fourier_mixer_saved, .work = fourier_mixer_work};

}  // namespace neurarch::plan
