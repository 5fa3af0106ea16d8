#!/usr/bin/env bash
# Histograms of the concave_points coefficient: non-private NUTS against dp-nss (gnuplot, SVG).
#   bash examples/breast-cancer/plot.sh OUT_DIR NUTS_RUN PRIVATE_RUN FILE.svg
set -euo pipefail
out="$1"; nuts="$2"; private="$3"; svg="$4"
column() {  # the concave_points column of every chain of a run
  for f in "$1"/chain-*.csv; do
    grep -v '^#' "$f" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "concave_points") c = i; next } { print $c }'
  done
}
column "$nuts" > "$out/nuts-concave.txt"
column "$private" > "$out/private-concave.txt"
gnuplot <<GP
set terminal svg size 720,420 font "sans,12"
set output "$svg"
set title "Breast cancer: posterior of the concave points coefficient"
set xlabel "coefficient (feature rescaled to [-1, 1] by its declared bounds)"
set ylabel "density"
set style fill transparent solid 0.4 noborder
bin(x, w) = w * floor(x / w) + w / 2
set key top left
plot "$out/nuts-concave.txt" using (bin(\$1, 0.25)):(1.0 / (0.25 * 4000)) smooth frequency with boxes title "non-private NUTS", \
     "$out/private-concave.txt" using (bin(\$1, 0.25)):(1.0 / (0.25 * 4000)) smooth frequency with boxes title "dp-nss, epsilon = 4"
GP
echo "wrote $svg"
