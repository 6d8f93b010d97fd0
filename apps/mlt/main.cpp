// mlt: classical machine learning on CSV files. main() only wires the subcommands,
// picks the BLAS kernel, and turns exceptions into one-line messages and exit codes.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "commands.hpp"
#include "common.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/io/file.hpp"

namespace {

// The subcommand path ("pca fit") for messages.
std::string command_name(const CLI::App& app) {
  std::string name = "mlt";
  const CLI::App* a = &app;
  while (true) {
    auto subs = a->get_subcommands();
    if (subs.empty()) break;
    a = subs.front();
    name += " " + a->get_name();
  }
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  mlt::rerun_on_better_blas_kernel(argv);
  mlt::io::install_cleanup_handlers();
  mlt::app::set_command_line(argc, argv);

  CLI::App app{"mlt: classical machine learning on CSV files", "mlt"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    return std::string("mlt ") + MLT_VERSION + "\nBLAS: " + mlt::blas_description();
  });
  unsigned threads = 0;
  bool quiet = false;
  app.add_option("--threads", threads, "Threads to use (default: one per core)")
      ->check(mlt::app::positive_integer());
  app.add_flag("-q,--quiet", quiet, "No messages on standard error except errors");
  bool timings = false;
  app.add_flag("--timings", timings, "Report the time of each phase (read, fit, write) on standard error");
  app.footer(
      "Run 'mlt COMMAND --help' for a command's options.\n"
      "Exit status: 0 success, 2 usage error, 65 bad data or model file, 66 cannot open an input,\n"
      "73 cannot create an output, 74 I/O error, 70 internal error.");
  app.parse_complete_callback([&] {
    mlt::set_thread_count(threads);
    mlt::app::set_quiet(quiet);
    mlt::app::set_timings(timings);
    mlt::set_log_function(quiet ? mlt::LogFunction() : [](const std::string& m) { std::cerr << "mlt: " << m << '\n'; });
  });

  mlt::app::setup_pca(app);
  mlt::app::setup_kmeans(app);
  mlt::app::setup_info(app);
  mlt::app::setup_split(app);
  mlt::app::setup_logreg(app);
  mlt::app::setup_knn(app);
  mlt::app::setup_ridge(app);
  mlt::app::setup_krr(app);
  // Global flags are accepted after the subcommand too: mlt pca fit ... --threads 1.
  std::function<void(CLI::App*)> fall_through = [&](CLI::App* a) {
    for (auto* sub : a->get_subcommands({})) {
      sub->fallthrough();
      fall_through(sub);
    }
  };
  fall_through(&app);

  // CLI11 would call an unknown command an "extra argument"; say what it is.
  auto is_command = [&](const char* name) {
    for (const auto* sub : app.get_subcommands({}))
      if (sub->check_name(name)) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    std::cerr << "mlt: unknown command '" << argv[1] << "'\nRun 'mlt --help' for the list of commands.\n";
    return mlt::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << command_name(app) << ": " << e.what() << "\nRun '" << command_name(app)
              << " --help' for usage.\n";
    return mlt::kExitUsage;
  } catch (const mlt::BrokenPipe&) {
    return mlt::kExitSigpipe;
  } catch (const mlt::Error& e) {
    std::cerr << command_name(app) << ": error: " << e.what() << '\n';
    return e.exit_status();
  } catch (const std::bad_alloc&) {
    std::cerr << command_name(app) << ": error: out of memory\n";
    return mlt::kExitSoftware;
  } catch (const std::exception& e) {
    std::cerr << command_name(app) << ": internal error: " << e.what() << '\n';
    return mlt::kExitSoftware;
  }
  return mlt::kExitOk;
}
