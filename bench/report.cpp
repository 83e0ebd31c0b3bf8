// depthsort-bench: progress lines, the final table, CSV and JSON.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench_args.hpp"

namespace depthsort::bench {
namespace {

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// Full precision for files: the plots and later comparisons should not inherit table rounding.
std::string number(double value) {
  if (std::isnan(value) || std::isinf(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

std::string ratio_text(double ratio) { return std::isnan(ratio) ? "-" : fixed(ratio, 2) + "x"; }

std::string sorter_label(const Row& row) { return row.baseline ? row.sorter + "*" : row.sorter; }

std::string steps_csv(const Row& row) {
  std::string out;
  for (const StepMedian& step : row.steps) {
    if (!out.empty()) out += ';';
    out += step.name + '=' + number(step.ms);
  }
  return out;
}

}  // namespace

std::string format_ms(double ms) {
  if (std::isnan(ms)) return "-";
  if (ms < 10) return fixed(ms, 3);
  if (ms < 100) return fixed(ms, 2);
  return fixed(ms, 1);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// Invalid UTF-8 (a path given on the command line, say) becomes U+FFFD rather than making the
// whole file unreadable: nlohmann's default would throw, a hand-written escaper would write it raw.
std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> header_lines(const RunHeader& h) {
  std::vector<std::string> lines;
  std::string device = "device:   " + h.device;
  if (h.sm_count > 0) {
    device += " (sm_" + h.compute_capability + ", " + std::to_string(h.sm_count) + " SMs, " + fixed(h.memory_gib, 1) +
              " GiB, L2 " + fixed(h.l2_mib, 0) + " MiB)";
  }
  lines.push_back(device);
  lines.push_back("cuda:     driver " + (h.driver.empty() ? "-" : h.driver) + ", runtime " +
                  (h.runtime.empty() ? "-" : h.runtime));
  lines.push_back("date:     " + h.date);
  lines.push_back("command:  " + h.command);
  lines.push_back("timing:   median/min/p90 of " + std::to_string(h.reps) + " reps after " + std::to_string(h.warmup) +
                  " warm-up runs; input restored before each rep, " + "outside the timed events; seed " +
                  std::to_string(h.seed));
  return lines;
}

std::string progress_line(const Row& row, std::size_t index, std::size_t total) {
  std::ostringstream out;
  out << '[' << index << '/' << total << "] " << sorter_label(row);
  if (!row.options.empty()) out << " [" << row.options << ']';
  out << "  " << row.dist << "  n=" << format_size(row.n);
  if (row.ran()) {
    out << "  median " << format_ms(row.median_ms) << " ms  min " << format_ms(row.min_ms) << "  p90 "
        << format_ms(row.p90_ms) << "  " << fixed(row.gpairs_per_s, 2) << " G/s";
    if (row.baseline)
      out << "  (baseline)";
    else if (!std::isnan(row.vs_cub))
      out << "  " << ratio_text(row.vs_cub) << " cub";
    if (!row.steps.empty()) {
      out << "  (";
      for (std::size_t i = 0; i < row.steps.size(); ++i)
        out << (i ? ", " : "") << row.steps[i].name << ' ' << format_ms(row.steps[i].ms);
      out << ')';
    }
  }
  if (row.check != "-") out << "  " << row.check;
  return out.str();
}

void print_table(std::ostream& out, const std::vector<Row>& rows) {
  const std::vector<std::string> titles = {"sorter", "options", "dist",      "n",      "median ms",
                                           "min ms", "p90 ms",  "G pairs/s", "vs cub", "check"};
  const std::vector<bool> right = {false, false, false, true, true, true, true, true, true, false};
  std::vector<std::vector<std::string>> cells;
  for (const Row& row : rows) {
    cells.push_back({sorter_label(row), row.options.empty() ? "-" : row.options, row.dist, format_size(row.n),
                     format_ms(row.median_ms), format_ms(row.min_ms), format_ms(row.p90_ms), fixed(row.gpairs_per_s, 2),
                     ratio_text(row.vs_cub), row.check});
  }
  std::vector<std::size_t> width(titles.size());
  for (std::size_t c = 0; c < titles.size(); ++c) {
    width[c] = titles[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  auto emit = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      const std::size_t pad = width[c] - line[c].size();
      if (c) text += "  ";
      if (right[c]) text += std::string(pad, ' ');
      text += line[c];
      if (!right[c] && c + 1 < line.size()) text += std::string(pad, ' ');
    }
    out << text << '\n';
  };
  emit(titles);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.push_back(std::string(w, '-'));
  emit(rule);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    emit(cells[r]);
    if (!rows[r].steps.empty()) {
      out << "    steps (median ms):";
      for (const StepMedian& step : rows[r].steps) out << "  " << step.name << ' ' << format_ms(step.ms);
      out << '\n';
    }
  }
  if (std::any_of(rows.begin(), rows.end(), [](const Row& row) { return row.baseline; }))
    out << "* cub-radix: the baseline of the vs cub column (median / cub-radix median at the same n "
           "and dist, this run)\n";
}

void write_csv_header(std::ostream& out) {
  out << "sorter,options,baseline,backend,dist,n,reps,median_ms,min_ms,p90_ms,gpairs_per_s,"
         "vs_cub,check,steps,device\n";
}

void write_csv(std::ostream& out, const RunHeader& header, const std::vector<Row>& rows) {
  write_csv_header(out);
  for (const Row& row : rows) write_csv_row(out, header, row);
}

void write_csv_row(std::ostream& out, const RunHeader& header, const Row& row) {
  out << csv_field(row.sorter) << ',' << csv_field(row.options) << ',' << (row.baseline ? 1 : 0) << ','
      << (row.gpu ? "gpu" : "cpu") << ',' << csv_field(row.dist) << ',' << row.n << ',' << row.reps << ','
      << number(row.median_ms) << ',' << number(row.min_ms) << ',' << number(row.p90_ms) << ','
      << number(row.gpairs_per_s) << ',' << number(row.vs_cub) << ',' << csv_field(row.check) << ','
      << csv_field(steps_csv(row)) << ',' << csv_field(header.device) << '\n';
}

std::string json_text(const RunHeader& h, const std::vector<Row>& rows) {
  using Json = nlohmann::ordered_json;  // keys in the documented order
  // NaN (a row that did not run) is written as null; nlohmann does that for non-finite numbers.
  Json header = {{"device", h.device},
                 {"sm_count", h.sm_count},
                 {"compute_capability", h.compute_capability},
                 {"memory_gib", h.memory_gib},
                 {"l2_mib", h.l2_mib},
                 {"cuda_driver", h.driver},
                 {"cuda_runtime", h.runtime},
                 {"date", h.date},
                 {"command", h.command},
                 {"reps", h.reps},
                 {"warmup", h.warmup},
                 {"seed", h.seed}};
  Json json_rows = Json::array();
  for (const Row& row : rows) {
    Json steps = Json::array();
    for (const StepMedian& step : row.steps) steps.push_back({{"name", step.name}, {"median_ms", step.ms}});
    json_rows.push_back({{"sorter", row.sorter},
                         {"options", row.options},
                         {"baseline", row.baseline},
                         {"backend", row.gpu ? "gpu" : "cpu"},
                         {"dist", row.dist},
                         {"n", row.n},
                         {"reps", row.reps},
                         {"median_ms", row.median_ms},
                         {"min_ms", row.min_ms},
                         {"p90_ms", row.p90_ms},
                         {"gpairs_per_s", row.gpairs_per_s},
                         {"vs_cub", row.vs_cub},
                         {"check", row.check},
                         {"steps", std::move(steps)}});
  }
  const Json document = {{"header", std::move(header)}, {"rows", std::move(json_rows)}};
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

void write_json(std::ostream& out, const RunHeader& header, const std::vector<Row>& rows) {
  out << json_text(header, rows);
}

std::string csv_text(const RunHeader& header, const std::vector<Row>& rows) {
  std::ostringstream out;
  write_csv(out, header, rows);
  return out.str();
}

}  // namespace depthsort::bench
