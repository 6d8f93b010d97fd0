// The pictures of `mlt plot` (cmd_plot.cpp declares their flags): each takes the
// plot's options, computes what is drawn through the library and renders it with
// gnuplot (plot_gnuplot.hpp). Model and data figures are in plot_figures.cpp, the cv
// report's in plot_cv.cpp; the small gnuplot-script helpers they share are here.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "data_options.hpp"
#include "plot_gnuplot.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::app {

struct PlotOptions {
  PlotOutputOptions out;
  std::string model;  // or the cv report
  DataOptions data;
  std::string labels;       // pca: the column that colours the points
  bool normalize = false;   // confusion: rows as shares of the true class
  unsigned grid = 0;        // regions: grid points per axis (0: by the format)
  std::string x, y;         // cv: the parameters on the axes
  bool curves = false;      // cv: curves instead of a heat map over two parameters
  std::string positive;     // roc, pr: the positive class
};

void run_scree(const PlotOptions& opt);
void run_pca_scatter(const PlotOptions& opt);
void run_kmeans(const PlotOptions& opt);
void run_confusion(const PlotOptions& opt);
void run_regions(const PlotOptions& opt);
void run_roc(const PlotOptions& opt);
void run_pr(const PlotOptions& opt);
void run_fit(const PlotOptions& opt);
void run_cv(const PlotOptions& opt);

// The file name of a path, for titles ("<stdin>" for -).
std::string file_name(const std::string& path);

// One gnuplot datablock: `$name << EOD`, the rows, `EOD`.
class Block {
 public:
  explicit Block(std::string name) : name_(std::move(name)), text_("$" + name_ + " << EOD\n") {}
  Block& row(std::initializer_list<double> values) {
    bool first = true;
    for (double v : values) {
      if (!first) text_ += ' ';
      first = false;
      io::append_number(text_, v);
    }
    text_ += '\n';
    return *this;
  }
  void blank() { text_ += '\n'; }
  std::string text() const { return text_ + "EOD\n"; }
  std::string ref() const { return "$" + name_; }

 private:
  std::string name_, text_;
};

// xtics/ytics "(\"a\" 0, \"b\" 1, ...)" for categorical axes.
std::string category_tics(const Names& names);
// The character of class k in a text chart, where colours may be missing.
std::string class_char(std::size_t k, bool region);

}  // namespace mlt::app
