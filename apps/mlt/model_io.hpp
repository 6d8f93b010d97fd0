// Model files as the command line handles them: reading and checking one, writing
// one with its data schema and provenance (the command line set by main), and
// refusing an output that would overwrite an input. Apart because only the verbs
// that save or load a model need it.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"

namespace mlt::app {

// The command line as typed, for model provenance; set by main.
void set_command_line(int argc, char** argv);

// What the model file says about the data it was trained on (written and read by the library).
using DataSchema = io::DataSchema;

// A model file read and verified, with its schema.
struct LoadedModel {
  io::ModelReader reader;
  DataSchema schema;
};
LoadedModel read_model(const std::string& path, const std::string& kind);

// A model of kind E::kind with its schema; a classifier's class names are checked
// against the classes it was fitted on (`classifies`: whether it is one, for a model
// that is a classifier or a regressor by a parameter).
template <class E>
std::pair<LoadedModel, E> read_estimator(const std::string& path, bool (*classifies)(const E&) = nullptr) {
  LoadedModel loaded = read_model(path, E::kind);
  E model = E::load(loaded.reader);
  if ((!classifies || classifies(model)) && loaded.schema.classes.size() != model.n_classes())
    loaded.reader.fail("class names do not match n_classes");
  return {std::move(loaded), std::move(model)};
}

// Writes `writer` (after adding schema and provenance) atomically to `path`.
void write_model(const std::string& path, io::ModelWriter& writer, const DataSchema& schema,
                 const io::Table& training);

// Saves a fitted model with its schema and provenance (temporary file, then rename);
// `annotate` adds to the header (the "info" `mlt info` shows, cv's record).
template <class E>
void save_model(const E& model, const std::string& path, const DataSchema& schema, const io::Table& training,
                const std::function<void(io::ModelWriter&)>& annotate = {}) {
  io::ModelWriter writer(E::kind);
  model.save(writer);
  if (annotate) annotate(writer);
  write_model(path, writer, schema, training);
}

// Refuses (UsageError) an output path that is one of the inputs.
void refuse_overwrite(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace mlt::app
