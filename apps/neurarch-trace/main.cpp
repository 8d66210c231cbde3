#include <iostream>

#include "cli/cli.hpp"

int main(int argc, char** argv) { return neurarch::cli::run(argc, argv, std::cout, std::cerr, std::cin); }
