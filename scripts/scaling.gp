# The work distribution's figures from scripts/scaling.sh's medians
# (docs/scaling.md):
#   gnuplot -e "dir='build/scaling'; labels='today'" scripts/scaling.gp
# labels: one or more schedulers' labels, each drawn as its own line, from
# DIR/<label>-capacity.txt, DIR/<label>-tail-trace.txt and
# DIR/<label>-tail-lognormal.txt.  The PNGs go to OUT (default docs/).
# Summary columns: 1 ranks, 2 batch, 3 wall_s, 4 units/s, 5 master_sends,
# 6 master_receives, 7 messages/s, 8 work_s, 9 efficiency, 10 idle_end,
# 11 tail_s, 12 ramp_s, 13 after_s, 14 runs.

if (!exists("dir")) dir = 'build/scaling'
if (!exists("labels")) labels = 'today'
if (!exists("out")) out = 'docs'

set terminal pngcairo size 900,600 font ",11"
set logscale x 2
set grid
set key top left

# Speed-up: the simulated work over the wall time (efficiency x ranks; the
# master counts as a rank), against the ideal.
set output out.'/scaling-speedup.png'
set title "Speed-up of a simulated Q(19) count (101,906 units, batches of 16)\nmedians; one master, ranks oversubscribed on 2 cores of an AMD EPYC"
set xlabel 'ranks'
set ylabel 'speed-up = simulated work / wall time'
set logscale y 2
plot x with lines dashtype 2 linecolor 'gray' title 'ideal', \
     for [label in labels] dir.'/'.label.'-tail-trace.txt' using 1:($9*$1) \
         with linespoints title label.': Q(19) unit sizes', \
     for [label in labels] dir.'/'.label.'-tail-lognormal.txt' using 1:($9*$1) \
         with linespoints title label.': lognormal, sigma 0.7'
unset logscale y

# The idle tail: the share of all rank-time spent after a rank finished its
# last unit while others still worked.
set output out.'/scaling-idle.png'
set title "Rank-time idle at the end of a simulated Q(19) count (101,906 units, batches of 16)\nmedians; one master, ranks oversubscribed on 2 cores of an AMD EPYC"
set ylabel 'idle share of ranks x wall'
set key top left
set yrange [0:*]
plot for [label in labels] dir.'/'.label.'-tail-trace.txt' using 1:10 \
         with linespoints title label.': Q(19) unit sizes', \
     for [label in labels] dir.'/'.label.'-tail-lognormal.txt' using 1:10 \
         with linespoints title label.': lognormal, sigma 0.7'
set autoscale y

# Master capacity: zero-cost units, so workers answer at once and the
# master's own loop is the limit (with every rank sharing 2 cores).
set output out.'/scaling-capacity.png'
set title "Master capacity: zero-cost units of Q(22) (266,609 units)\nmedians; ranks oversubscribed on 2 cores of an AMD EPYC"
set ylabel 'per second at the master'
set logscale y 10
set key top right
plot for [label in labels] dir.'/'.label.'-capacity.txt' using 1:($2 == 16 ? $4 : 1/0) \
         with linespoints title label.': units/s, batches of 16', \
     for [label in labels] dir.'/'.label.'-capacity.txt' using 1:($2 == 16 ? $7 : 1/0) \
         with linespoints title label.': messages/s, batches of 16', \
     for [label in labels] dir.'/'.label.'-capacity.txt' using 1:($2 == 1 ? $7 : 1/0) \
         with points pointsize 2 title label.': messages/s, batches of 1'
