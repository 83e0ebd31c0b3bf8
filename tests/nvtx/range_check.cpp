#include "range_check.hpp"

#include <algorithm>
#include <set>

namespace depthsort::nvtx_test {
namespace {

bool contains(auto const& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// Every reported name must be a range directly inside `parent`; a name found deeper is badly
// nested, one found nowhere has no range.
void expect_children(const Range& parent, const std::set<std::string>& names, std::vector<std::string>& problems) {
  for (const std::string& name : names) {
    const bool direct = std::any_of(parent.children.begin(), parent.children.end(),
                                    [&](const Range& child) { return child.name == name; });
    if (direct) continue;
    const std::string deeper = find_below(parent, name, parent.name);
    if (!deeper.empty())
      problems.push_back("'" + name + "' is timed as a step of '" + parent.name +
                         "' but its range is nested deeper: " + deeper);
    else
      problems.push_back("'" + name + "' is timed but has no range inside '" + parent.name +
                         "' (its ranges: " + outline(parent, 1) + ")");
  }
}

}  // namespace

std::string find_below(const Range& range, std::string_view name, const std::string& above) {
  for (const Range& child : range.children) {
    const std::string here = above + "/" + child.name;
    if (child.name == name) return here;
    if (std::string deeper = find_below(child, name, here); !deeper.empty()) return deeper;
  }
  return {};
}

bool without_timing(std::string_view name) { return contains(kRangesWithoutTiming, name); }
bool without_range(std::string_view name) { return contains(kTimingsWithoutRange, name); }

std::string outline(const Range& range, int depth) {
  std::string text = range.name;
  if (depth <= 0 || range.children.empty()) return text;
  text += " [";
  for (std::size_t i = 0; i < range.children.size(); ++i)
    text += (i ? ", " : "") + outline(range.children[i], depth - 1);
  return text + "]";
}

Recording parse_recording(std::string_view text) {
  Recording recording;
  std::map<int, std::vector<Range>> open;  // per thread, innermost last
  int line_number = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_number;
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(line_number) + ": ";
    const std::size_t tab = line.find('\t');
    const std::string_view kind = line.substr(0, tab);
    if (tab == std::string_view::npos || (kind != "push" && kind != "pop")) {
      recording.problems.push_back(where + "not 'push<TAB>THREAD<TAB>NAME' or 'pop<TAB>THREAD': '" + std::string(line) +
                                   "'");
      continue;
    }
    std::string_view rest = line.substr(tab + 1);
    const std::size_t name_tab = rest.find('\t');
    const std::string thread_text(rest.substr(0, name_tab));
    int thread = 0;
    try {
      thread = std::stoi(thread_text);
    } catch (const std::exception&) {
      recording.problems.push_back(where + "bad thread number '" + thread_text + "'");
      continue;
    }
    std::vector<Range>& stack = open[thread];
    if (kind == "push") {
      if (name_tab == std::string_view::npos) {
        recording.problems.push_back(where + "a push without a name");
        continue;
      }
      stack.push_back(Range{std::string(rest.substr(name_tab + 1)), {}});
    } else {
      if (stack.empty()) {
        recording.problems.push_back(where + "a pop on thread " + thread_text + " with no range open");
        continue;
      }
      Range closed = std::move(stack.back());
      stack.pop_back();
      (stack.empty() ? recording.roots[thread] : stack.back().children).push_back(std::move(closed));
    }
  }
  for (const auto& [thread, stack] : open)
    for (const Range& range : stack)
      recording.problems.push_back("range '" + range.name + "' on thread " + std::to_string(thread) +
                                   " was never closed (pushed, never popped)");
  return recording;
}

std::vector<std::string> compare_sort(const Range& sorter_range, std::string_view sorter,
                                      const std::vector<std::string>& steps) {
  std::vector<std::string> problems;
  if (sorter_range.name != sorter) {
    problems.push_back("expected the sorter's own range '" + std::string(sorter) + "', found '" + sorter_range.name +
                       "'");
    return problems;
  }
  std::set<std::string> names;
  for (const std::string& step : steps)
    if (!without_range(step)) names.insert(step);
  expect_children(sorter_range, names, problems);
  for (const Range& child : sorter_range.children)
    if (!names.contains(child.name) && !contains(kRangesWithoutTiming, child.name))
      problems.push_back("range '" + child.name + "' inside '" + sorter_range.name + "' has no step timing");
  return problems;
}

std::vector<std::string> compare_frame(const Range& frame, const std::vector<std::string>& labels,
                                       std::string_view sorter, std::string_view particle_sorter) {
  std::vector<std::string> problems;
  if (frame.name != "frame") {
    problems.push_back("expected the frame's range 'frame', found '" + frame.name + "'");
    return problems;
  }
  std::set<std::string> phases;
  std::map<std::string, std::vector<std::string>> sort_steps;  // "sort", "particle sort" -> step names
  for (const std::string& label : labels) {
    const std::size_t slash = label.find('/');
    if (slash == std::string::npos) {
      problems.push_back("timing '" + label + "' is not 'GROUP/NAME'");
      continue;
    }
    const std::string group = label.substr(0, slash), name = label.substr(slash + 1);
    if (group == "frame") {
      if (!contains(kTimingsWithoutRange, name)) phases.insert(name);
    } else if (group == "sort" || group == "particle sort") {
      sort_steps[group].push_back(name);
    } else {
      problems.push_back("timing '" + label + "' is of a group this check does not know (frame, sort, particle sort)");
    }
  }
  expect_children(frame, phases, problems);
  for (const Range& child : frame.children)
    if (!phases.contains(child.name) && !contains(kRangesWithoutTiming, child.name))
      problems.push_back("range '" + child.name + "' inside the frame has no timing");

  // The sorter's own range (two with --separate-passes: the particles' second) inside "sort".
  if (sort_steps.empty()) return problems;
  const auto sort_phase = std::find_if(frame.children.begin(), frame.children.end(),
                                       [](const Range& child) { return child.name == "sort"; });
  if (sort_phase == frame.children.end()) {
    problems.push_back("sort steps are timed but the frame has no 'sort' range");
    return problems;
  }
  const std::vector<std::pair<std::string, std::string_view>> sorts{{"sort", sorter},
                                                                    {"particle sort", particle_sorter}};
  std::size_t next = 0;
  for (const auto& [group, name] : sorts) {
    const auto steps = sort_steps.find(group);
    if (steps == sort_steps.end()) continue;
    if (next >= sort_phase->children.size()) {
      problems.push_back("'" + group + "' steps are timed but 'sort' holds no range for sorter '" + std::string(name) +
                         "'");
      continue;
    }
    for (std::string& problem : compare_sort(sort_phase->children[next++], name, steps->second))
      problems.push_back(group + ": " + problem);
  }
  for (; next < sort_phase->children.size(); ++next)
    problems.push_back("range '" + sort_phase->children[next].name + "' inside 'sort' is no sorter this frame timed");
  return problems;
}

}  // namespace depthsort::nvtx_test
