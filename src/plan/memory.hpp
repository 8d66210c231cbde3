#pragma once
// Peak GPU memory of one steady-state training step, as a timeline (memory_timeline.cpp): the forward pass, the
// walk back through the nodes in backward, and the optimizer step. Every figure is a named term; the fit decision
// adds the allocator's fragmentation and the CUDA context. memory.cpp sizes what does not depend on the batch.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "plan/activations.hpp"
#include "plan/hardware.hpp"
#include "plan/setup.hpp"
#include "plan/setup_rules.hpp"

namespace neurarch::plan {

struct MemoryTerm {
  std::string name;  ///< stable key, e.g. "activations"
  std::int64_t bytes = 0;
};

struct PhaseMemory {
  std::string phase;  ///< "load" | "forward_end" | "backward" | "optimizer_step"
  std::string at;     ///< node the phase's peak happens at; "" for the end of the forward and the phases without nodes
  std::int64_t allocated = 0;
  std::vector<MemoryTerm> terms;
};

struct MemoryPlan {
  Mode mode = Mode::Full;
  std::int64_t batch = 1;
  std::vector<PhaseMemory> phases;
  std::string peak_phase;
  std::string peak_at;  ///< the node the peak happens at ("" at the end of the forward or in the optimizer step)
  std::int64_t peak_allocated = 0;  ///< what torch.cuda.max_memory_allocated would report
  std::int64_t reserved = 0;        ///< + allocator fragmentation (max_memory_reserved)
  std::int64_t device_bytes = 0;    ///< + CUDA context: what the card must hold
  std::vector<MemoryTerm> breakdown;  ///< the peak phase's terms plus fragmentation and context
  std::int64_t trainable_parameters = 0;
};

/// Precomputes everything batch-independent once; `at(batch)` is cheap, so solvers can probe.
class MemoryModel {
 public:
  MemoryModel(const graph::Graph& g, const Setup& s, const Runtime& rt);
  MemoryPlan at(std::int64_t batch) const;
  bool fits(const Card& card, std::int64_t batch) const;
  std::int64_t usable_bytes(const Card& card) const;
  const ActivationModel& activations() const { return acts_; }
  const Setup& setup() const { return setup_; }
  std::int64_t trainable_parameters() const { return trainable_; }

  struct Static {
    std::int64_t parameters = 0, gradients = 0, optimizer_state = 0, optimizer_temporaries = 0;
    std::int64_t autocast_copies = 0, dequant_transient = 0, workspace = 0;
    std::int64_t paged_optimizer_state = 0;  ///< on the device, outside max_memory_allocated
    std::int64_t load_bytes = 0;             ///< a load-then-quantize load phase; 0 otherwise
  };
  const Static& static_terms() const { return static_; }
  /// Per node: bytes of what it owns for the whole step (its parameters, their gradients,
  /// optimizer state and step temporaries, autocast copies) — for pipeline and sharding splits.
  std::int64_t node_model_bytes(int node) const;
  /// Per node and sample: bytes its forward keeps for backward.
  std::int64_t node_activation_bytes(int node, std::int64_t batch) const;
  /// Logits and loss buffers at their largest (forward end or start of backward), for `batch`.
  std::int64_t logits_peak_bytes(std::int64_t batch) const;
  std::int64_t in_flight_bytes(std::int64_t batch) const;
  /// The loss's buffers for the step's tokens at `batch`.
  LossMemory loss_at(std::int64_t batch) const;
  const Runtime& runtime() const { return rt_; }

 private:
  struct StepTerms;
  StepTerms step_terms(std::int64_t batch) const;
  PhaseMemory forward_phase(const StepTerms& t) const;
  PhaseMemory backward_phase(const StepTerms& t) const;
  std::int64_t transient_bytes(std::int64_t per_sample, std::int64_t batch) const;
  std::int64_t rounded(const SavedTensor& t, std::int64_t batch) const;

  const graph::Graph& g_;
  Setup setup_;
  Runtime rt_;
  ActivationModel acts_;
  Static static_;
  std::int64_t trainable_ = 0;
  std::vector<std::int64_t> node_grads_, node_copies_, node_params_, node_trainable_, node_optimizer_;
  std::vector<std::int64_t> node_accumulation_;  ///< per node: a shared weight's gradient sum in backward
  std::int64_t widest_output_ = 0;
  std::int64_t input_bytes_ = 0;  ///< per sample: the batch the loop hands the model (ids, pixels)
};

}  // namespace neurarch::plan
