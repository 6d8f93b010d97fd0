// How the library's progress reports (mlt/core/progress.hpp) and warnings reach the
// user.
//
// On a terminal (stderr), once the program has run for a second: one status line,
// rewritten in place at most four times a second and cleared when its task ends or
// anything else is written:
//   mlt: svm smo: iteration 52000, gap 0.0031, 4.2 s, about 3 s left
// With --log-json: every report as a JSON line on stderr, terminal or not and even
// under -q (a script asked for it), at most four a second per task plus each task's
// last; warnings and the commands' notes become JSON lines too:
//   {"event":"progress","task":"svm smo","unit":"iteration","step":52000,"total":null,
//    "measure":"gap","value":0.0031,"fraction":0.61,"elapsed_s":4.2,"remaining_s":2.7,"done":false}
//   {"event":"warning","message":"..."}      (the library's warnings)
//   {"event":"note","message":"svm: 7869 iterations, ..."}   (a command's own lines)
// A cross-validation reports its fits; while it runs, its fits' own solvers are not
// shown. The time left is elapsed · (1 − f)/f for the task's estimated fraction f
// (absent, never guessed, when the task cannot estimate it).
// MLT_PROGRESS_AFTER (seconds, default 1) moves the terminal's threshold, for tests.
#pragma once

#include <string>

namespace mlt::app {

void install_messages(bool quiet, bool log_json);
// A command's own line on stderr ("mlt: MESSAGE"), after the rules above (note()).
void print_note(const std::string& message);
// Clears the status line, if shown: before an error message.
void clear_status_line();

}  // namespace mlt::app
