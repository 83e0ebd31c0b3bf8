// depthsort-multigpu --bench's rows: their figures, their CSV columns and text, the weighted split's share.
#include "bench_rows.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>

#include "depthsort/host/stats.hpp"

namespace depthsort::multi_gpu {
namespace {

// A field of free text in the CSV: its commas become semicolons.
std::string csv_safe(std::string text) {
  std::replace(text.begin(), text.end(), ',', ';');
  return text;
}
}  // namespace

Row timed_row(std::string kase, int gpus, std::size_t n, const std::string& dist, const std::vector<double>& samples) {
  Row row;
  row.kase = std::move(kase);
  row.gpus = gpus;
  row.n = n;
  row.dist = dist;
  row.reps = static_cast<int>(samples.size());
  row.median_ms = median(samples);
  row.min_ms = *std::min_element(samples.begin(), samples.end());
  row.p90_ms = nearest_rank_quantile(samples, 0.9);
  return row;
}

void write_csv_header(std::ostream& out) {
  out << "case,gpus,n,dist,reps,median_ms,min_ms,p90_ms,gpairs_per_s,vs_hybrid_1gpu,vs_cub_radix_1gpu,local_sorter,"
         "chunks,splitters_ms,partition_ms,exchange_ms,local_sort_ms,gather_ms,bytes_between_gpus,exchange_gb_per_s,"
         "nccl_same_volume_ms,nccl_gb_per_s,exchange_vs_nccl,range_counts,check,transport,ce_same_volume_ms,"
         "splitter_source,candidates\n";
}

std::string number(double v, int digits) {
  if (!std::isfinite(v)) return "";
  std::ostringstream s;
  s << std::setprecision(digits) << std::fixed << v;
  return s.str();
}

double exchange_ms(const Row& r) { return r.has_steps ? r.steps[2] : 0; }

void write_csv_row(std::ostream& out, const Row& r) {
  const double gb = static_cast<double>(r.exchange_bytes) / 1e9;
  const double transfer = exchange_ms(r);
  out << r.kase << ',' << r.gpus << ',' << r.n << ',' << r.dist << ',' << r.reps << ',' << number(r.median_ms) << ','
      << number(r.min_ms) << ',' << number(r.p90_ms) << ','
      << number(static_cast<double>(r.n) / (r.median_ms * 1e-3) / 1e9, 3) << ',' << number(r.vs_hybrid, 3) << ','
      << number(r.vs_cub, 3) << ',' << r.sorter << ',' << r.chunks;
  for (int s = 0; s < MultiGpuSorter::kSteps; ++s) out << ',' << (r.has_steps ? number(r.steps[s]) : "");
  out << ',' << r.bytes_between << ',' << (transfer > 0 ? number(gb / (transfer * 1e-3), 1) : "") << ','
      << (r.nccl_ms > 0 ? number(r.nccl_ms) : "") << ',' << (r.nccl_ms > 0 ? number(gb / (r.nccl_ms * 1e-3), 1) : "")
      << ',' << (r.nccl_ms > 0 && transfer > 0 ? number(r.nccl_ms / transfer, 3) : "") << ',' << r.counts << ','
      << csv_safe(r.check) << ',' << r.transport << ',' << (r.ce_ms > 0 ? number(r.ce_ms) : "") << ','
      << r.splitter_source << ',' << r.candidates << '\n';
  out.flush();
}

std::string check_text(const CheckResult& result) { return result.ok ? "pass" : "FAIL: " + result.message; }

double model_share(double t1, double s, int gpus) {
  const double other = 2 * s + t1 / (gpus - 1);
  return other / (t1 + other);
}

}  // namespace depthsort::multi_gpu
