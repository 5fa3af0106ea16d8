// bernoulli-beta: y_i ~ Bernoulli(p), p ~ Beta(1, 1).
data {
  int<lower=1> n;
  int<lower=0, upper=1> y[n];
}
parameters {
  real<lower=0, upper=1> p;
}
model {
  p ~ beta(1, 1);
  y ~ bernoulli(p);
}
