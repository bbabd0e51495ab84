// The cmbench command line. Exit codes: 0 success; 1 a run ended with a non-ok status (its record
// is still written); 2 bad input (message names the problem and the valid choices; nothing is
// written).
#pragma once

namespace cmb {

int cli_main(int argc, char** argv);

}  // namespace cmb
