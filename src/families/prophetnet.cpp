// ProphetNet (models/prophetnet/modeling_prophetnet.py + configuration_prophetnet.py, transformers
// 4.47.1): see prophetnet_common.cpp for the n-gram decoder.
#include "families/prophetnet_common.hpp"

namespace neurarch::families {

const Family& prophetnet_family() {
  static const Family family{"prophetnet", "models/prophetnet/modeling_prophetnet.py",
                             classes("ProphetNet", {heads::ForConditionalGeneration, heads::ForCausalLM}),
                             prophetnet::build};
  return family;
}

}  // namespace neurarch::families
