// The drawing side of `mlt plot`: mlt computes what to draw and writes it as a gnuplot
// script with its data inline; gnuplot (found on PATH) renders it. gnuplot rather than
// a library linked in: Debian packages it (gnuplot-nox, no GUI dependency), it is well
// kept, and one program renders PNG and PDF (cairo), SVG and a text chart for the
// terminal, so mlt draws no pixel itself and a user can take the script (--script)
// and change it.
//
// The format comes from -o's extension (.png, .svg, .pdf, .txt), or --format; with
// neither -o nor --format, a text chart when standard output is a terminal, else a
// usage error asking for -o. gnuplot writes the picture to a pipe; mlt copies it into
// an io::OutputFile, so the file appears complete (temporary file, then rename) or not
// at all, as every mlt output.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "mlt/core/error.hpp"

namespace mlt::app {

// sysexits' EX_UNAVAILABLE: a program mlt needs (gnuplot) is not installed.
inline constexpr int kExitUnavailable = 69;
struct UnavailableError : Error {
  explicit UnavailableError(const std::string& m) : Error(m, kExitUnavailable) {}
};

// The flags every plot takes.
struct PlotOutputOptions {
  std::string output;  // -o FILE; empty: standard output
  std::string format;  // png, svg, pdf, txt; empty: from -o's extension
  std::string size;    // WxH: pixels (png, svg), points (pdf), characters (txt)
  std::string title;   // replaces the plot's own title
  bool script = false;  // print the gnuplot script instead of running it
};
void add_plot_output_options(CLI::App* cmd, PlotOutputOptions& opt);

// A gnuplot string literal that gnuplot never interprets: single quotes, `'` doubled,
// control characters as spaces. Every piece of text that comes from data, a model, a
// report, a file name or a flag reaches the script through it.
std::string gp_quote(const std::string& s);
// Throws (status 70) if `script` holds, outside a datablock or a single-quoted string,
// anything gnuplot would expand or run (a backquote, `@`, a `!` command, system, shell,
// load, call, pipe), or a backquote, `@` or backslash in a double-quoted string.
// render() checks every script with it, so a text that bypassed gp_quote fails loudly
// instead of reaching gnuplot.
void require_inert(const std::string& script);
// A number as gnuplot data: shortest round-trip decimal.
std::string gp_number(double v);

// What the plot will be drawn on, decided before any data is read so that a bad -o
// or --size fails at once: the terminal, whether it is text, the target path.
class PlotTarget {
 public:
  explicit PlotTarget(const PlotOutputOptions& opt);
  bool text() const { return format_ == "txt"; }
  // Renders `body` (gnuplot commands after the terminal is set; data inline as
  // datablocks): runs gnuplot and writes its output to the target atomically, or with
  // --script prints the whole script (terminal and `set output` included) on standard
  // output. `title` is the default title (--title replaces it).
  void render(const std::string& body, const std::string& title) const;

 private:
  std::string terminal() const;
  PlotOutputOptions opt_;
  std::string format_;
  unsigned width_ = 0, height_ = 0;
  bool colour_ = false;  // ANSI colours in a text chart on a terminal
};

// Series colours (matplotlib's "tab10"), cycled; the lighter tint of each for areas.
std::string series_colour(std::size_t i);
std::string series_tint(std::size_t i);

}  // namespace mlt::app
