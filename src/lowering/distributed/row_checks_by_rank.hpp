// The whole order check of a CSR row array (ir/csr_rows.hpp) in a nest
// whose steps are distributed runs distributed too: its loop over the rows
// is split in blocks like theirs, so each rank checks the rows of its
// block and reads only that part of the row pointers instead of all of
// them (the ranks' blocks together check every row once). A rank whose
// rows decrease stops the run, as one whose row-by-row checks fail does.
#pragma once
#include "ir/program.hpp"

namespace teml::lowering {

void distributeRowChecks(ir::Program& p);

}  // namespace teml::lowering
