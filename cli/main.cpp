#include "cli/app.hpp"

int main(int argc, char** argv) { return cmb::cli::main(argc, argv); }
