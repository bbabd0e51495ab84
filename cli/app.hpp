// The cmbench command line. Exit codes: 0 success; 1 a run ended with a non-ok status (its record
// is still written), or compared result sets differ; 2 bad input (the message names what is
// wrong and what is valid; nothing is written); 3 an internal error (a cmbench bug).
#pragma once

namespace cmb::cli {

int main(int argc, char** argv);

}  // namespace cmb::cli
