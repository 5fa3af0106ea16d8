// logistic-fashion-mnist (src/models/logistic_regression.hpp): y_i ~ Bernoulli(logit⁻¹(x_iᵀθ)),
// θ ~ N(0, prior_sd² I), no intercept; x holds the preset's PCA-50 features (‖x_i‖ ≤ 1).
data {
  int<lower=1> n;
  int<lower=1> d;
  matrix[n, d] x;
  int<lower=0, upper=1> y[n];  // rstan 2.21: the pre-2.26 array syntax
  real<lower=0> prior_sd;
}
parameters {
  vector[d] theta;
}
model {
  theta ~ normal(0, prior_sd);
  y ~ bernoulli_logit_glm(x, 0, theta);
}
