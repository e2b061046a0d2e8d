#include "lowering/pass_log.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "diag/diagnostics.hpp"
#include "ir/printer.hpp"

namespace teml::lowering {

PassLog::PassLog(const std::string& directory) : directory_(directory) {
  std::error_code e;
  std::filesystem::create_directories(directory, e);
  index_.open(directory + "/index.txt");
  if (e || !index_) throw UsageError("--dump-passes: cannot write to '" + directory + "'");
}

ir::StmtP PassLog::run(const std::string& name, int nest, const ir::StmtP& in,
                       const std::function<ir::StmtP(const ir::StmtP&)>& pass) {
  auto t = std::chrono::steady_clock::now();
  ir::StmtP out = pass(in);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  // IR nodes are immutable: a pass that changed nothing usually returns its
  // input; otherwise the printed forms decide.
  std::string text = ir::toString(out, true);
  write(name, nest, text, seconds, out != in && text != ir::toString(in, true));
  return out;
}

void PassLog::record(const std::string& name, const ir::Program& before, const ir::Program& after, double seconds) {
  std::string text = ir::toString(after, true);
  write(name, -1, text, seconds, text != ir::toString(before, true));
}

void PassLog::write(const std::string& name, int nest, const std::string& text, double seconds, bool changed) {
  char number[16];
  std::snprintf(number, sizeof number, "%02d", ++count_);
  std::string file = std::string(number) + (nest >= 0 ? "-nest" + std::to_string(nest + 1) : "") + "-" + name + ".ir";
  index_ << number << " " << name << (nest >= 0 ? " nest " + std::to_string(nest + 1) : "") << " "
         << seconds * 1e3 << " ms" << (changed ? " -> " + file : " (unchanged)") << "\n";
  index_.flush();
  if (!changed) return;
  std::ofstream out(directory_ + "/" + file);
  out << "# " << name << ", " << seconds * 1e3 << " ms\n" << text;
}

}  // namespace teml::lowering
