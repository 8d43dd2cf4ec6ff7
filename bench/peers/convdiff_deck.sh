# Sourced by run_cpu_peers.sh and run_gpu_peers.sh: the deck of hamlet's IDR(s) + smoothing on the
# peers' convection-diffusion problem (hm_convdiff_params' defaults: eps 1, beta = (0, 250, 500)/sqrt(5),
# r 0; b = ones), so both runners solve the same system. Needs $py (a python3 with numpy).
# convdiff_deck DECK OUTPUT BACKEND N S TOL MAXIT
convdiff_deck() {
  local beta_y beta_z
  # shellcheck disable=SC2154 # $py is set by the runner that sources this file
  beta_y=$($py -c "print(250 / 5 ** 0.5)"); beta_z=$($py -c "print(500 / 5 ** 0.5)")
  cat >"$1" <<EOF
[run]
output = $2
backend = $3
[hamiltonian]
model = convdiff
n = $4
eps = 1
beta_x = 0
beta_y = $beta_y
beta_z = $beta_z
r = 0
[solver]
method = idr
problem = linear
s = $5
smoothing = yes
tol = $6
maxit = $7
vectors = no
[rhs]
kind = ones
EOF
}
