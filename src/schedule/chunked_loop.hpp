// The loop at level r split into an outer loop over chunks and the loop
// itself over one chunk: what stripmine (a chunk of a given size) and
// split(nparts=n) (a given number of chunks) share.
#pragma once
#include <functional>
#include <string>

#include "ir/stmt.hpp"

namespace teml::schedule {

struct Chunks {
  ir::ExprP size;   // iterations per chunk
  ir::ExprP count;  // iterations of the outer loop
};

// `what` names the primitive in refusals; `chunks` makes both from the loop's
// extent (end - begin, never negative). The last chunk is cut at the loop's
// end unless the chunks cover the extent exactly.
ir::StmtP chunkedLoop(const ir::StmtP& nest, int r, const std::string& what,
                      const std::function<Chunks(const ir::ExprP& extent)>& chunks);

}  // namespace teml::schedule
