// banana-tempered-2d (src/models/banana.hpp): phi = (theta1, theta2 + a*theta1^2) ~ N(0, s0^2 I)
// a priori (Jacobian 1), x_i ~ N(phi, diag(lik_var)), the likelihood tempered by T.
data {
  int<lower=1> n;
  matrix[n, 2] x;
  real<lower=0> a;
  real<lower=0> prior_sd;
  vector<lower=0>[2] lik_sd;
  real<lower=0, upper=1> temperature;
}
parameters {
  vector[2] theta;
}
model {
  real phi2 = theta[2] + a * square(theta[1]);
  target += normal_lpdf(theta[1] | 0, prior_sd) + normal_lpdf(phi2 | 0, prior_sd);
  target += temperature * (normal_lpdf(col(x, 1) | theta[1], lik_sd[1])
                           + normal_lpdf(col(x, 2) | phi2, lik_sd[2]));
}
