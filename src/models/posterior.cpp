#include "models/posterior.hpp"

#include <algorithm>

#include "models/checks.hpp"

namespace dpmcmc {

Posterior::Posterior(const Model& model, const Dataset& data, std::size_t block_rows)
    : model_(model), data_(data), block_rows_(std::max<std::size_t>(1, block_rows)) {
  // Once here rather than per evaluation: a dataset of the wrong width is bad input.
  model_checks::dataset(model.name(), static_cast<Eigen::Index>(model.data_columns().size()),
                        data.x.cols());
  summary_ = model.summarize(data);
  if (summary_) return;  // the rows are never read: no scratch blocks
  const auto b =
      static_cast<Eigen::Index>(std::min(block_rows_, std::max<std::size_t>(1, data.rows())));
  row_values_.resize(b);
  row_grads_.resize(b, model.dim());
}

double Posterior::log_density(const Vec& theta) const {
  if (summary_) return model_.log_prior(theta) + model_.temperature() * summary_->log_lik(theta);
  double lik = 0.0;
  for (std::size_t begin = 0; begin < data_.rows(); begin += block_rows_) {
    const std::size_t count = std::min(block_rows_, data_.rows() - begin);
    auto out = row_values_.head(static_cast<Eigen::Index>(count));
    model_.log_lik_rows(theta, data_.block(begin, count), out);
    lik += out.sum();
  }
  return model_.log_prior(theta) + model_.temperature() * lik;
}

double Posterior::log_density_gradient(const Vec& theta, Vec& grad) const {
  const int d = model_.dim();
  Vec lik_grad = Vec::Zero(d);
  double lik = 0.0;
  if (summary_) {
    lik = summary_->log_lik(theta);
    summary_->grad_log_lik(theta, lik_grad);
  } else {
    for (std::size_t begin = 0; begin < data_.rows(); begin += block_rows_) {
      const std::size_t count = std::min(block_rows_, data_.rows() - begin);
      const auto c = static_cast<Eigen::Index>(count);
      auto values = row_values_.head(c);
      auto grads = row_grads_.topRows(c);
      const RowBlock rows = data_.block(begin, count);
      model_.log_lik_rows(theta, rows, values);
      model_.grad_log_lik_rows(theta, rows, grads);
      lik += values.sum();
      lik_grad += grads.colwise().sum().transpose();
    }
  }
  grad.resize(d);
  model_.grad_log_prior(theta, grad);
  const double t = model_.temperature();
  grad += t * lik_grad;
  return model_.log_prior(theta) + t * lik;
}

}  // namespace dpmcmc
