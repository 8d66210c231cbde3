#pragma once
// The registry seen as a catalogue of architectures, for `--list-architectures`.
#include <string>
#include <vector>

namespace neurarch::families {

/// One architecture family and every model_type that builds with it.
struct ArchitectureListing {
  std::string family;
  std::string reference;
  std::vector<std::string> model_types;
  std::vector<std::string> classes;
};

/// Every family the registry knows, sorted by family id.
std::vector<ArchitectureListing> supported_architectures();

}  // namespace neurarch::families
