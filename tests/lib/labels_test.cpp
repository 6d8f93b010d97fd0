// Class labels (lib/mlt/labels.hpp): the order of the classes, which decides the
// positive class of a binary problem (the second), against scikit-learn's and LIBSVM's.
#include "mlt/labels.hpp"

#include <doctest/doctest.h>

namespace labels_test {

using mlt::Names;

Names classes_of(const std::vector<std::string>& labels) {
  mlt::LabelEncoder enc;
  enc.fit_encode(labels);
  return enc.classes();
}

TEST_CASE("labels: numbers order as numbers, a leading + included; text by bytes") {
  // LIBSVM's files: -1 the negative class, +1 the positive (the second, the larger).
  CHECK(classes_of({"+1", "-1", "+1"}) == Names{"-1", "+1"});
  CHECK(classes_of({"10", "2", "-3.5", "2"}) == Names{"-3.5", "2", "10"});
  CHECK(classes_of({"1", "0"}) == Names{"0", "1"});
  // The class keeps its text: "+1" and "1" are two labels (as text they differ).
  CHECK(classes_of({"+1", "-1"})[1] == "+1");
  // Text, or a mix: bytes, as scikit-learn's LabelEncoder sorts strings.
  CHECK(classes_of({"b", "a", "B"}) == Names{"B", "a", "b"});
  CHECK(classes_of({"10", "2", "x"}) == Names{"10", "2", "x"});
  // Only one leading sign: "+-1" and "++1" are text.
  CHECK(classes_of({"+-1", "2"}) == Names{"+-1", "2"});
  CHECK(classes_of({"++1", "2"}) == Names{"++1", "2"});
}

}  // namespace labels_test
