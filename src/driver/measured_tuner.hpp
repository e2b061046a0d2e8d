// The measured search of the automatic schedule (docs/auto-schedule.md):
// candidate nests compiled in parallel, run on this machine in turns over
// random inputs, the fastest kept, and the choice stored in the kernel cache
// (tuning/<hash>) so that the same program on the same machine chooses at
// once the next time. A stored choice that cannot be read is ignored.
// Under mpirun (several ranks launched) rank 0 alone reads the stored choice
// or measures, each candidate as one process on this rank's threads, and
// every rank takes rank 0's choice (docs/distributed.md).
#pragma once
#include <iosfwd>
#include <string>

#include "autoschedule/tuner.hpp"
#include "runtime/buffer.hpp"
#include "runtime/jit.hpp"
#include "target/target.hpp"

namespace teml::driver {

struct TuningOptions {
  double budgetSeconds = 3;  // per nest, compiling and measuring
  bool progress = true;      // a progress line on stderr while tuning takes longer than a second
};

class MeasuredTuner : public autoschedule::Tuner {
 public:
  MeasuredTuner(target::Target target, runtime::JitOptions jit, std::string cacheDir, TuningOptions options,
                std::ostream& err);
  size_t fastest(const ir::Program& context, const std::string& key, const std::vector<ir::StmtP>& candidates,
                 double secondsSpent = 0) override;
  int measured() const { return measured_; }  // nests measured (not taken from the cache)

 private:
  std::string storedChoicePath(const std::string& key) const;
  size_t choose(const ir::Program& context, const std::string& withCandidates,
                const std::vector<ir::StmtP>& candidates, double budget);

  target::Target target_;
  runtime::JitOptions jit_;
  std::string cacheDir_;  // "": choices are not kept
  TuningOptions options_;
  std::ostream& err_;
  int measured_ = 0;
  runtime::BufferMap buffers_;  // by tensor name, over the nests measured
};

}  // namespace teml::driver
