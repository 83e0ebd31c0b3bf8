// Setting a run up, before its first frame: the outputs checked, the path (GPU or CPU) and its
// sorter chosen, the GL context's device checked for CUDA-GL interop, the sorters of
// --cycle-sorters listed, the scene built within the memory there is, and the opening lines on
// the console. run() (loop/run.cpp) calls these in order.
#pragma once

#include <string>
#include <vector>

#include "cli/run_options.hpp"
#include "depthsort/sort/registry.hpp"
#include "loop/console.hpp"
#include "loop/run_state.hpp"
#include "loop/sorter_cycle.hpp"
#include "scene/scene.hpp"
#include "settings.hpp"

namespace depthsort::app {

// The path a run takes: the sorter that runs and its options.
struct PathChoice {
  const SorterInfo* info = nullptr;
  OptionValues options;          // --sorter-options where they apply, else the defaults
  bool options_applied = false;  // --sorter-options given and applied (the sorter asked for runs)
  std::string why_cpu;           // why the CPU path was taken ("" on the GPU path)
  bool cpu() const noexcept { return info->backend == Backend::Cpu; }
};

// Throws before anything runs if an output would replace an input, the program or the other
// output (UsageError), or cannot be written (OutputError): a bad --screenshot path does not cost
// the --json results of a long run, or the other way round. Returns both outputs resolved.
RunOutputs check_outputs(const RunOptions& options, const SceneSpec& scene);
// Throws UsageError if an output is one of the scene's material files (known once it is read).
void check_material_files(const RunOptions& options, const SceneSpec& scene,
                          const std::vector<std::string>& material_files);

// The sorter asked for (--sorter, --cpu) where it can run, else the CPU sorter; `notes` receives
// a line when --sorter-options are dropped.
PathChoice choose_path(const RunOptions& options, std::string& notes);
// With the GL context current: the GPU path needs that context on a CUDA device; if it is not,
// the CPU path, saying why. Sets the device line.
void confirm_path(PathChoice& path, const RunOptions& options, RunLines& lines, std::string& notes);
// --cycle-sorters: every sorter of the path with each option variant (none without the flag).
SorterCycle cycle_for(const RunOptions& options, const PathChoice& path, std::string& notes);
// The scene of the settings, its memory checked with what the run keeps beside it (the timing
// record, every sorter of the cycle, the expanded draw's buffer).
Scene build_run_scene(const RunOptions& options, const Settings& settings, const PathChoice& path,
                      const SorterCycle& cycle, std::string& notes);
// The opening lines: program, GL and path, the notes, the scene, its memory, the draw path and the
// sorter(s). The notes (and the CPU path's note on --colour segment) become the panel's.
void say_opening(const Console& console, const RunOptions& options, const Settings& settings, const PathChoice& path,
                 const SorterCycle& cycle, const Scene& scene, const std::string& notes, RunLines& lines);
// The settings as the run starts them: the path's sorter and options, the scene's look, and its
// counts as built (the knot's rounded size, the mixed scene's one particle), which the panel edits.
void adopt_path_and_scene(Settings& settings, const PathChoice& path, const Scene& scene);

}  // namespace depthsort::app
