#include "ui/ui_font.hpp"

#if defined(DEPTHSORT_UI_FONT_FILE)
// The font's bytes in read-only data (the assembler's .incbin: no generated source of a
// megabyte of numbers to compile).
asm(".section .rodata\n"
    ".balign 16\n"
    "depthsort_ui_font_begin:\n"
    ".incbin \"" DEPTHSORT_UI_FONT_FILE
    "\"\n"
    "depthsort_ui_font_end:\n"
    ".previous\n");
extern "C" const unsigned char depthsort_ui_font_begin[];
extern "C" const unsigned char depthsort_ui_font_end[];
#endif

namespace depthsort::app {

std::span<const unsigned char> ui_font_file() noexcept {
#if defined(DEPTHSORT_UI_FONT_FILE)
  return {depthsort_ui_font_begin, depthsort_ui_font_end};
#else
  return {};
#endif
}

}  // namespace depthsort::app
