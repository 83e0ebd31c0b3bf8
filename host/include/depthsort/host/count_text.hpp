// Counts on the command line, spelled the same way in both programs: plain
// digits (1000000), a power (2^24) or a binary suffix, case-insensitive: K = 2^10, M = 2^20,
// G = 2^30 (so 16M = 16,777,216). Also byte sizes in messages, and the quoting of text from files
// and paths in messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace depthsort {

// The spellings, for --help texts and error messages.
inline constexpr std::string_view kCountSpellings =
    "1000000, 2^24, or a binary suffix K (2^10), M (2^20), G (2^30): 1K = 1024, 16M = 2^24, 1G = 2^30";

// Parses `text` (surrounding blanks ignored) as a count in [min, max]. On failure returns nullopt
// and, if `why` is given, sets it to the reason: "empty", "not a count", "below the minimum 1",
// "above the limit 4G (4294967296)".
std::optional<std::uint64_t> parse_count(std::string_view text, std::uint64_t min, std::uint64_t max,
                                         std::string* why = nullptr);

// The shortest exact spelling: 16777216 -> "16M", 1536 -> "1536", 3072 -> "3K".
std::string format_count(std::uint64_t n);

// Plain decimal digits (no sign, no blanks, no suffix) as a count; nullopt for anything else or
// a value above 2^64 - 1.
std::optional<std::uint64_t> parse_digits(std::string_view text);
// `text` without the blanks (isspace) at either end.
std::string_view trim_blanks(std::string_view text);

// How byte_text writes a size, in binary units.
enum class ByteUnits {
  MiB,       // "12 MiB", rounded up (a nonzero size never reads 0 MiB): memory compared to the MiB
  MiBOrGiB,  // as MiB below 1 GiB, "1.4 GiB" (one decimal) from it on: estimates
  GiB,       // "0.5 GiB", one decimal, whatever the size
  WholeGiB,  // "80 GiB", rounded to whole GiB: a device's memory
  Exact,     // "1024 MiB" for a whole number of MiB, else "1073741825 bytes": limits, which must not round
};
// A byte size for a message: the one formatter of the demo and the benchmark.
std::string byte_text(std::uint64_t bytes, ByteUnits units);

// `text` in single quotes, safe for a terminal and bounded: bytes that are not printable (control
// characters, escape sequences, invalid UTF-8) become \xNN, quotes and backslashes are escaped,
// valid UTF-8 stays as it is, and past `max_chars` the rest is cut to "...(N bytes)".
// 60 characters suit file content (a token of an OBJ line); paths get quote_path's wider bound, as
// a path cut short no longer says which file.
std::string quote_for_message(std::string_view text, std::size_t max_chars = 60);
inline std::string quote_path(std::string_view path) { return quote_for_message(path, 1024); }
// A path as the user typed it where it is plain printable text, else quote_path's escaped and
// quoted form: no control bytes or invalid UTF-8 reach the terminal or a JSON string.
std::string shown_path(std::string_view path);

}  // namespace depthsort
