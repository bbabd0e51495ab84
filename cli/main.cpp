#include "harness/cli.hpp"

int main(int argc, char** argv) { return cmb::cli_main(argc, argv); }
