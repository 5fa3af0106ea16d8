// dpmcmc._core: the Python module's C++ half. It runs the CLI's `sample`, `account` and `ledger`
// in-process (cli/in_process.hpp) with the arguments the Python half (python/dpmcmc/__init__.py)
// builds, so that every check and message is the command line's, and scores new rows with a fit
// (run/predict_rows.hpp). Sampling releases the GIL; Ctrl-C
// reaches the run's own SIGINT handler (run/interrupt.hpp), which stops the chains cleanly.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cli/in_process.hpp"
#include "core/error.hpp"
#include "run/predict_rows.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace {

// JSON to Python objects through the json module (exact for every value the reports hold).
py::object to_python(const json& value) {
  return py::module_::import("json").attr("loads")(value.dump());
}

// Where the published columns (what the chain CSVs hold) are among the draws' columns.
std::vector<int> published_columns(const dpmcmc::SampleOutcome& out) {
  std::vector<int> keep;
  const auto& cols = out.run.columns;
  for (int j = 0; j < static_cast<int>(cols.size()); ++j) {
    const auto& name = cols[static_cast<std::size_t>(j)];
    if (std::find(out.published_columns.begin(), out.published_columns.end(), name) !=
        out.published_columns.end())
      keep.push_back(j);
  }
  return keep;
}

// One chain's kept draws, the chosen columns, as a (draws, columns) float64 array.
py::array_t<double> chain_array(const dpmcmc::Mat& draws, const std::vector<int>& columns) {
  py::array_t<double> a(
      {static_cast<py::ssize_t>(draws.rows()), static_cast<py::ssize_t>(columns.size())});
  auto view = a.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < draws.rows(); ++i) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      view(i, static_cast<py::ssize_t>(k)) = draws(i, columns[k]);
    }
  }
  return a;
}

py::dict sample(const std::vector<std::string>& args, const std::optional<std::string>& schema,
                const std::optional<std::string>& data_text) {
  dpmcmc::cli::InMemoryInputs inputs;
  if (schema) inputs.schema = json::parse(*schema);
  inputs.data_text = data_text;
  dpmcmc::cli::InProcessSample result;
  {
    const py::gil_scoped_release release;
    result = dpmcmc::cli::sample_in_process(args, inputs);
  }
  const auto& out = result.outcome;
  const std::vector<int> columns = published_columns(out);
  py::list names, chains;
  for (int j : columns) names.append(out.run.columns[static_cast<std::size_t>(j)]);
  for (const auto& ch : out.run.chains) chains.append(chain_array(ch.draws, columns));
  py::list param_names;
  for (std::size_t j = static_cast<std::size_t>(out.run.first_param_column);
       j < out.run.columns.size(); ++j)
    param_names.append(out.run.columns[j]);
  py::dict d;
  d["columns"] = names;
  d["chains"] = chains;
  d["param_names"] = param_names;
  d["complete"] = out.run.complete();
  d["report"] = to_python(out.report);
  d["curator"] = out.plan ? to_python(out.curator) : py::none();
  d["out_dir"] = result.spec.out_dir.string();
  d["curator_dir"] = out.plan ? py::object(py::str(out.curator_file.parent_path().string()))
                              : py::object(py::none());
  return d;
}

py::object account(const std::vector<std::string>& args) {
  return to_python(dpmcmc::cli::account_in_process(args));
}

py::object advise(const std::vector<std::string>& args, const std::optional<std::string>& schema) {
  return to_python(dpmcmc::cli::advise_in_process(
      args, schema ? std::optional<json>(json::parse(*schema)) : std::nullopt));
}

py::object ledger(const std::vector<std::string>& args,
                  const std::optional<std::string>& data_text) {
  json answer;
  {
    // A locked ledger is waited for (up to its busy timeout) without holding up other threads.
    py::gil_scoped_release release;
    answer = dpmcmc::cli::ledger_in_process(args, data_text);
  }
  return to_python(answer);
}

py::array_t<double> matrix_array(const dpmcmc::Mat& m) {
  py::array_t<double> a({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  auto view = a.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) view(i, j) = m(i, j);
  return a;
}

py::array_t<double> vector_array(const dpmcmc::Vec& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  auto view = a.mutable_unchecked<1>();
  for (Eigen::Index i = 0; i < v.size(); ++i) view(i) = v(i);
  return a;
}

// New rows scored with a run's published draws (run/predict_rows.hpp).
py::dict predict(const std::string& run_dir, const std::string& rows_text,
                 const std::string& source) {
  dpmcmc::RowPredictions p;
  {
    py::gil_scoped_release release;
    p = dpmcmc::predict_rows(run_dir, rows_text, source);
  }
  py::dict d;
  d["quantity"] = p.quantity;
  d["mean"] = vector_array(p.mean);
  d["q5"] = vector_array(p.q5);
  d["q95"] = vector_array(p.q95);
  d["draws"] = matrix_array(p.draws);
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "dpmcmc's C++ engine (use the dpmcmc package, not this module)";
  // dpmcmc::Error as _core.Error(exit_code, message); the Python half maps codes to its classes.
  static py::exception<dpmcmc::Error> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dpmcmc::Error& e) {
      const py::tuple args = py::make_tuple(static_cast<int>(e.code()), std::string(e.what()));
      PyErr_SetObject(error.ptr(), args.ptr());
    }
  });
  m.def("sample", &sample, py::arg("args"), py::arg("schema") = py::none(),
        py::arg("data_text") = py::none(),
        "Runs `dpmcmc sample ARGS`; schema (JSON text) and data_text (CSV) stand in for the files");
  m.def("account", &account, py::arg("args"), "Runs `dpmcmc account ARGS --json`");
  m.def("advise", &advise, py::arg("args"), py::arg("schema") = py::none(),
        "Runs `dpmcmc advise ARGS --json`; schema (JSON text) stands in for the file");
  m.def("ledger", &ledger, py::arg("args"), py::arg("data_text") = py::none(),
        "Runs `dpmcmc ledger ARGS` (init, show, export) and returns its JSON answer");
  m.def("predict", &predict, py::arg("run_dir"), py::arg("rows_text"), py::arg("source"),
        "Scores new rows (CSV text in the schema's units) with a run's published draws");
}
