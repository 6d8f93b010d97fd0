// The cv report's picture in `mlt plot cv`: a curve over one parameter with fold
// error bars, or a heat map (or curves) over two.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "data_options.hpp"
#include "model_io.hpp"
#include "plot_figures.hpp"
#include "plot_models.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/file.hpp"
#include "mlt/io/number_format.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"
#include "mlt/pca.hpp"

namespace mlt::app {
namespace {

struct CvPoint {
  std::map<std::string, std::string> params;  // value as shown ("" where not applicable)
  std::map<std::string, double> numbers;      // the numeric ones
  double mean = 0, std = 0;
  std::vector<double> folds;
};

struct CvReport {
  std::string metric;
  std::vector<std::string> names;  // parameters in the report's order
  std::vector<CvPoint> points;
  std::size_t best = 0;
};

CvReport read_cv_report(const std::string& path) {
  const std::string source = path == "-" ? "<stdin>" : path;
  const std::string text = io::read_whole_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw DataError(source + ": not JSON; plot cv reads the report of mlt <algo> cv --json");
  }
  const auto bad = [&](const std::string& what) {
    return DataError(source + ": not an mlt cv report (" + what + "); plot cv reads the report of mlt <algo> cv --json");
  };
  if (!j.is_object() || !j.contains("metric") || !j["metric"].is_string()) throw bad("no \"metric\"");
  if (!j.contains("results") || !j["results"].is_array() || j["results"].empty()) throw bad("no \"results\"");
  CvReport r;
  r.metric = j["metric"].get<std::string>();
  for (const auto& e : j["results"]) {
    if (!e.is_object() || !e.contains("params") || !e["params"].is_object() || !e.contains("mean") ||
        !e["mean"].is_number() || !e.contains("std") || !e["std"].is_number())
      throw bad("a result without params, mean and std");
    CvPoint p;
    p.mean = e["mean"].get<double>();
    p.std = e["std"].get<double>();
    if (!std::isfinite(p.mean) || !std::isfinite(p.std)) throw bad("a mean or std that is not a number");
    for (auto it = e["params"].begin(); it != e["params"].end(); ++it) {
      if (std::find(r.names.begin(), r.names.end(), it.key()) == r.names.end()) r.names.push_back(it.key());
      if (it->is_null()) continue;
      if (it->is_number()) {
        p.numbers[it.key()] = it->get<double>();
        p.params[it.key()] = gp_number(it->get<double>());
      } else {
        p.params[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
      }
    }
    if (e.contains("fold_scores") && e["fold_scores"].is_array())
      for (const auto& f : e["fold_scores"])
        if (f.is_number()) p.folds.push_back(f.get<double>());
    r.points.push_back(std::move(p));
  }
  // The best point: the report's, found by its parameters.
  if (j.contains("best") && j["best"].is_object() && j["best"].contains("params")) {
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      bool same = true;
      for (auto it = j["best"]["params"].begin(); it != j["best"]["params"].end() && same; ++it) {
        const auto at = r.points[i].params.find(it.key());
        const std::string v = it->is_null()     ? ""
                              : it->is_number() ? gp_number(it->get<double>())
                              : it->is_string() ? it->get<std::string>()
                                                : it->dump();
        same = (at == r.points[i].params.end() ? std::string() : at->second) == v;
      }
      if (same) {
        r.best = i;
        break;
      }
    }
  }
  return r;
}

// A value as a label: numbers to 4 significant digits (a log grid's 0.0031622776601683794
// reads 0.003162), "n/a" where the parameter does not apply.
std::string label_of(const std::string& v) {
  if (v.empty()) return "n/a";
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size()) return v;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", d);
  return buf;
}

std::string value_of(const CvPoint& p, const std::string& name) {
  const auto it = p.params.find(name);
  return it == p.params.end() ? "" : it->second;
}

// The distinct values of a parameter in the report's order; numeric ones sorted.
std::vector<std::string> values_of(const CvReport& r, const std::string& name, bool& numeric) {
  std::vector<std::string> values;
  numeric = true;
  for (const CvPoint& p : r.points) {
    const std::string v = value_of(p, name);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    if (!v.empty() && !p.numbers.count(name)) numeric = false;
  }
  if (numeric) {
    std::map<std::string, double> num;
    for (const CvPoint& p : r.points)
      if (p.numbers.count(name)) num[value_of(p, name)] = p.numbers.at(name);
    std::stable_sort(values.begin(), values.end(), [&](const std::string& a, const std::string& b) {
      if (a.empty() || b.empty()) return !a.empty() && b.empty();
      return num.at(a) < num.at(b);
    });
  }
  return values;
}

}  // namespace

void run_cv(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const CvReport r = read_cv_report(opt.model);
  std::vector<std::string> varying;
  for (const std::string& name : r.names) {
    bool numeric = false;
    if (values_of(r, name, numeric).size() > 1) varying.push_back(name);
  }
  const auto check_name = [&](const std::string& n, const char* flag) {
    if (std::find(r.names.begin(), r.names.end(), n) == r.names.end()) {
      std::string list;
      for (const auto& v : r.names) list += (list.empty() ? "" : ", ") + v;
      throw UsageError(std::string(flag) + " " + n + ": the report has no parameter of that name (" +
                       (list.empty() ? "it has none" : "parameters: " + list) + ")");
    }
  };
  std::string xname = opt.x, yname = opt.y;
  if (!xname.empty()) check_name(xname, "--x");
  if (!yname.empty()) check_name(yname, "--y");
  for (const std::string& v : varying) {
    if (xname.empty() && v != yname) xname = v;
    else if (yname.empty() && v != xname && varying.size() > 1) yname = v;
  }
  if (xname.empty() && !r.names.empty()) xname = r.names.front();
  // The other varying parameters are held at the best point's values.
  const CvPoint& best = r.points[r.best];
  std::string held;
  std::vector<const CvPoint*> shown;
  for (const std::string& v : varying)
    if (v != xname && v != yname) held += (held.empty() ? "" : ", ") + v + " = " + label_of(value_of(best, v));
  for (const CvPoint& p : r.points) {
    bool keep = true;
    for (const std::string& v : varying)
      if (v != xname && v != yname && value_of(p, v) != value_of(best, v)) keep = false;
    if (keep) shown.push_back(&p);
  }
  bool better_high = true;
  try {
    better_high = metrics::higher_is_better(r.metric);
  } catch (const UsageError&) {
  }
  const std::string ylabel = r.metric + (better_high ? " (higher is better)" : " (lower is better)");
  std::string title = "cv: " + r.metric + " over " + (xname.empty() ? "one point" : xname) +
                      (yname.empty() ? "" : " and " + yname) + " (" + file_name(opt.model) + ")";
  if (!held.empty()) title += ", " + held + " (best)";

  bool x_numeric = false, y_numeric = false;
  const std::vector<std::string> xs = xname.empty() ? std::vector<std::string>{""} : values_of(r, xname, x_numeric);
  const std::vector<std::string> ys = yname.empty() ? std::vector<std::string>{""} : values_of(r, yname, y_numeric);
  // A numeric axis spanning two decades or more, all positive: a log scale, as the grids
  // of --lambda and --gamma are made.
  double lo = INFINITY, hi = -INFINITY;
  if (x_numeric)
    for (const CvPoint* p : shown)
      if (p->numbers.count(xname)) {
        lo = std::min(lo, p->numbers.at(xname));
        hi = std::max(hi, p->numbers.at(xname));
      }
  const bool logx = x_numeric && lo > 0 && hi / lo >= 100;
  const auto x_of = [&](const CvPoint& p) {
    if (x_numeric && p.numbers.count(xname)) return p.numbers.at(xname);
    return double(std::find(xs.begin(), xs.end(), value_of(p, xname)) - xs.begin());
  };
  std::string body;
  if (!yname.empty() && !opt.curves) {
    // Heat map: one cell per pair of values, coloured by the mean; cells of pairs the
    // grid leaves out (a parameter that does not apply) stay blank.
    Block b("cells");
    double mlo = INFINITY, mhi = -INFINITY;
    for (const CvPoint* p : shown) {
      mlo = std::min(mlo, p->mean);
      mhi = std::max(mhi, p->mean);
    }
    for (const CvPoint* p : shown) {
      const double xi = double(std::find(xs.begin(), xs.end(), value_of(*p, xname)) - xs.begin());
      const double yi = double(std::find(ys.begin(), ys.end(), value_of(*p, yname)) - ys.begin());
      // White text on the darker half of the colours (better is darker).
      const double depth = mhi > mlo ? (p->mean - mlo) / (mhi - mlo) : 1.0;
      b.row({xi, yi, p->mean, p == &best ? 1.0 : 0.0, (better_high ? depth : 1 - depth) > 0.5 ? 1.0 : 0.0});
    }
    Names xt, yt;
    for (const auto& v : xs) xt.push_back(label_of(v));
    for (const auto& v : ys) yt.push_back(label_of(v));
    body += b.text();
    body += "set xrange [-0.5:" + gp_number(xs.size() - 0.5) + "]\nset yrange [-0.5:" + gp_number(ys.size() - 0.5) +
            "]\n";
    body += "set xtics " + category_tics(xt) + (xs.size() > 6 ? " rotate by 45 right" : "") + "\nset ytics " +
            category_tics(yt) + "\nset tics scale 0\n";
    body += "set xlabel " + gp_quote(xname) + "\nset ylabel " + gp_quote(yname) + "\nset cblabel " + gp_quote(ylabel) +
            "\n";
    // Better is darker whichever way the metric points.
    body += std::string("set palette defined ") +
            (better_high ? "(0 \"#f7fbff\", 1 \"#08306b\")" : "(0 \"#08306b\", 1 \"#f7fbff\")") + "\n";
    if (mhi > mlo) body += "set cbrange [" + gp_number(mlo) + ":" + gp_number(mhi) + "]\n";
    body += "unset key\nset style fill solid 1.0 noborder\n";
    body += "plot " + b.ref() + " using 1:2:(0.5):(0.5):3 with boxxyerror fc palette, " + b.ref() +
            " using 1:2:(sprintf(\"%.4g\", $3)):($5 > 0 ? 0xffffff : 0x000000) with labels tc rgb variable, " + b.ref() +
            " using ($4 > 0 ? $1 : NaN):2:(0.5):(0.5) with boxxyerror fs empty lc rgb \"#d62728\" lw 3\n";
    target.render(body, title + "; best outlined");
    return;
  }
  // Curves: mean ± std over the folds against x, one curve per value of the second
  // parameter (--curves); each fold's score as a small dot when the report has them.
  std::string plots;
  for (std::size_t s = 0; s < ys.size(); ++s) {
    Block b("curve" + std::to_string(s)), f("folds" + std::to_string(s));
    std::vector<const CvPoint*> pts;
    for (const CvPoint* p : shown)
      if (value_of(*p, yname) == ys[s]) pts.push_back(p);
    std::stable_sort(pts.begin(), pts.end(), [&](const CvPoint* a, const CvPoint* b) { return x_of(*a) < x_of(*b); });
    bool any_folds = false;
    for (const CvPoint* p : pts) {
      b.row({x_of(*p), p->mean, p->std});
      for (double v : p->folds) {
        f.row({x_of(*p), v});
        any_folds = true;
      }
    }
    body += b.text();
    const std::string colour = gp_quote(series_colour(s));
    const std::string name = yname.empty() ? r.metric : yname + " = " + label_of(ys[s]);
    if (any_folds) {
      body += f.text();
      plots += (plots.empty() ? "" : ", ") + f.ref() + " using 1:2 with points pt 7 ps 0.5 lc rgb " + colour +
               " notitle";
    }
    plots += (plots.empty() ? "" : ", ") + b.ref() + " using 1:2:3 with yerrorbars pt 7 ps 0.8 lc rgb " + colour +
             " title " + gp_quote(name + " (mean ± std over folds)") + ", " + b.ref() +
             " using 1:2 with lines lw 2 lc rgb " + colour + " notitle";
  }
  Block bb("best");
  bb.row({x_of(best), best.mean});
  body += bb.text();
  plots += ", " + bb.ref() + " using 1:2 with points pt 6 ps 3 lw 2 lc rgb \"black\" title \"best\"";
  if (logx) body += "set logscale x\nset format x \"%g\"\n";
  if (!x_numeric) {
    Names xt;
    for (const auto& v : xs) xt.push_back(label_of(v));
    body += "set xtics " + category_tics(xt) + "\nset xrange [-0.5:" + gp_number(xs.size() - 0.5) + "]\n";
  } else if (lo < hi) {
    // A little room so the end points' bars are not on the frame.
    body += logx ? "set xrange [" + gp_number(lo / std::pow(hi / lo, 0.03)) + ":" + gp_number(hi * std::pow(hi / lo, 0.03)) + "]\n"
                 : "set xrange [" + gp_number(lo - 0.03 * (hi - lo)) + ":" + gp_number(hi + 0.03 * (hi - lo)) + "]\n";
  }
  body += "set xlabel " + gp_quote(xname.empty() ? "" : xname) + "\nset ylabel " + gp_quote(ylabel) +
          "\nset grid\nset key outside below\n";
  body += "plot " + plots + "\n";
  target.render(body, title);
}

}  // namespace mlt::app
