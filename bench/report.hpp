// depthsort-bench: result rows and their forms: progress lines, the final table, CSV and JSON.
// Pure host code, so the CPU tests can check the formats.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace depthsort::bench {

struct RunHeader {
  std::string device = "none";  // device name, or "none (<why>)"
  int sm_count = 0;
  std::string compute_capability;  // "9.0"
  double memory_gib = 0;
  double l2_mib = 0;
  std::string driver;   // CUDA driver API version, "13.0"
  std::string runtime;  // CUDA runtime version, "13.0"
  std::string date;     // UTC, ISO 8601
  std::string command;  // the command line, shell-quoted
  int reps = 0;
  int warmup = 0;
  unsigned long long seed = 0;
};

struct StepMedian {
  std::string name;
  double ms = 0;
};

struct Row {
  std::string sorter;
  std::string options;  // format_options text, "" if none
  bool baseline = false;
  bool gpu = true;
  std::string dist;
  std::size_t n = 0;
  int reps = 0;  // timed repetitions actually done (0 when skipped)
  double median_ms = std::numeric_limits<double>::quiet_NaN();
  double min_ms = std::numeric_limits<double>::quiet_NaN();
  double p90_ms = std::numeric_limits<double>::quiet_NaN();
  double gpairs_per_s = std::numeric_limits<double>::quiet_NaN();
  double vs_cub = std::numeric_limits<double>::quiet_NaN();  // median / cub-radix median
  std::string check = "-";                                   // pass | FAIL: ... | skipped: ... | error: ... | -
  std::vector<StepMedian> steps;                             // only for sorters reporting more than one step
  bool ran() const noexcept { return reps > 0; }
};

// Lines of the header block (device, versions, date, command).
std::vector<std::string> header_lines(const RunHeader& header);
// One progress line for a finished row: "[3/8] thrust  uniform  16M  0.794 ms ...".
std::string progress_line(const Row& row, std::size_t index, std::size_t total);
// The final aligned table with per-step lines under multi-step rows.
void print_table(std::ostream& out, const std::vector<Row>& rows);

// CSV as documented in usage_text(); fields quoted where needed (RFC 4180).
void write_csv(std::ostream& out, const RunHeader& header, const std::vector<Row>& rows);
// The same in pieces, for writing each row as it completes.
void write_csv_header(std::ostream& out);
void write_csv_row(std::ostream& out, const RunHeader& header, const Row& row);
void write_json(std::ostream& out, const RunHeader& header, const std::vector<Row>& rows);
// The whole files as text, for writing through an OutputFile.
std::string csv_text(const RunHeader& header, const std::vector<Row>& rows);
std::string json_text(const RunHeader& header, const std::vector<Row>& rows);

std::string csv_field(const std::string& text);
// One JSON string (invalid UTF-8 replaced by U+FFFD).
std::string json_string(const std::string& text);
// "0.559" style: 3 significant decimals below 10, fewer above; "-" for NaN.
std::string format_ms(double ms);

}  // namespace depthsort::bench
