// The one reader of OBJ and MTL text: its lines, its words and its numbers. The check that
// counts a file before anything is built and the parse that builds the mesh both read through
// it, so a token the mesh uses is always the token the check saw: one definition of a line end,
// of a blank, of a comment and of a number.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace depthsort::app {

// Blanks between words: space, tab, vertical tab, form feed.
constexpr bool is_obj_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

// One line of an OBJ or MTL file: its number (from 1) and its words, a `#` and everything after
// it on the line left out.
struct ObjLine {
  std::size_t number = 0;
  std::string_view text;                // the line without its end and without its comment
  std::vector<std::string_view> words;  // `text` split at blanks
  // The text from word `first` to the end of the last word (a material name with blanks inside).
  std::string_view rest(std::size_t first) const noexcept;
};

// The lines of `text`, in order. A line ends at "\n", "\r\n" or a lone "\r" (old Mac files), so
// a line can hide no other from the reader.
class ObjLines {
 public:
  explicit ObjLines(std::string_view text) noexcept : text_(text) {}
  // The next line (blank and comment-only lines included); false at the end of the text.
  bool next(ObjLine& line);

 private:
  std::string_view text_;
  std::size_t at_ = 0, number_ = 0;
};

// The number of the line (from 1) that holds byte `offset` of `text`, its line ends as ObjLines
// reads them.
std::size_t obj_line_at(std::string_view text, std::size_t offset) noexcept;

// A number as OBJ and MTL files write it: decimal, [+-]digits[.digits][(e|E)[+-]digits] (".5"
// and "5." too), read exactly (correctly rounded to float, whatever the number of digits), in no
// locale. Values too small for a float are zero. Hexadecimal, "inf", "nan" and anything else are
// not numbers; values beyond a float's range are not finite.
enum class ObjNumber { Ok, NotANumber, NotFinite };
ObjNumber read_obj_number(std::string_view word, float& value) noexcept;

// A face's vertex reference "v", "v/vt", "v//vn" or "v/vt/vn": the vertex number (negative:
// counted back from the last vertex defined so far). False where it is not such a reference.
bool read_obj_reference(std::string_view word, long long& vertex) noexcept;

}  // namespace depthsort::app
