// What depthsort-bench says about the run and the machine: the header every output starts with
// (device, versions, date, command line) and --list, the registry as a table.
#include "describe.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "depthsort/harness/workload.hpp"
#include "depthsort/sort/registry.hpp"

namespace depthsort::bench {
namespace {

std::string shell_quote(std::string_view arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=.,:/^@%") == std::string_view::npos)
    return std::string(arg);
  std::string out = "'";
  for (char c : arg) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string version_text(int v) {
  return v <= 0 ? std::string("-") : std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace

RunHeader make_header(int argc, char** argv, const BenchConfig& config, bool gpu, const std::string& why_no_gpu) {
  RunHeader h;
  for (int i = 0; i < argc; ++i) h.command += (i ? " " : "") + shell_quote(argv[i]);
  h.date = utc_now();
  h.reps = config.reps;
  h.warmup = config.warmup;
  h.seed = config.seed;
  int driver = 0;
  int runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) h.driver = version_text(driver);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) h.runtime = version_text(runtime);
  cudaGetLastError();
  if (!gpu) {
    h.device = "none: " + why_no_gpu;
    return h;
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    h.device = prop.name;
    h.sm_count = prop.multiProcessorCount;
    h.compute_capability = std::to_string(prop.major) + std::to_string(prop.minor);
    h.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    h.l2_mib = static_cast<double>(prop.l2CacheSize) / (1024.0 * 1024.0);
  }
  cudaGetLastError();
  return h;
}

void print_registry(std::ostream& out) {
  std::vector<std::vector<std::string>> lines;
  lines.push_back({"name", "backend", "stable", "available", "origin"});
  struct Extra {
    std::string description;
    std::vector<std::string> options;
  };
  std::vector<Extra> extras;
  for (const SorterInfo& info : sorter_registry()) {
    std::string why;
    const bool available = info.is_available(&why);
    lines.push_back({std::string(info.name), info.backend == Backend::Gpu ? "gpu" : "cpu", info.stable ? "yes" : "no",
                     available ? "yes" : "no", std::string(info.origin)});
    Extra extra{std::string(info.description), {}};
    if (!available) extra.description += "\n    not available here: " + why;
    for (const OptionSpec& spec : info.options) {
      extra.options.push_back(
          std::string(spec.name) + "=" + std::to_string(spec.default_value) +
          (spec.is_flag() ? " (flag 0|1)"
                          : " (" + std::to_string(spec.min_value) + ".." + std::to_string(spec.max_value) + ")") +
          "  " + std::string(spec.help));
    }
    extras.push_back(std::move(extra));
  }
  cudaGetLastError();
  std::vector<std::size_t> width(lines[0].size(), 0);
  for (const auto& line : lines)
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  for (std::size_t r = 0; r < lines.size(); ++r) {
    std::string text;
    for (std::size_t c = 0; c < lines[r].size(); ++c) {
      text += lines[r][c];
      if (c + 1 < lines[r].size()) text += std::string(width[c] - lines[r][c].size() + 2, ' ');
    }
    out << text << '\n';
    if (r == 0) continue;
    const Extra& extra = extras[r - 1];
    out << "    " << extra.description << '\n';
    if (extra.options.empty()) out << "    options: none\n";
    for (const std::string& option : extra.options) out << "    option " << option << '\n';
  }
  out << "\ndistributions: " << distribution_names() << '\n'
      << "Options are set with --options NAME:opt=value,... (see --help).\n";
}

}  // namespace depthsort::bench
