# bash completion for hitchbench(1) and its helper programs
#
# Installed as /usr/share/bash-completion/completions/hitchbench (and a
# link per helper), or sourced by hand: . completion/hitchbench.bash
#
# The commands and each command's options are listed here, one list a
# command (or a command's subcommand): tests/cli/t0030-man-completion.sh
# fails when a list misses an option that `hitchbench CMD --help` shows.
# What changes with the machine is asked of the hitchbench being completed
# (the word typed, so build/hitchbench completes from its own checkout):
#   recipes    `hitchbench recipes --names`; a recipe's variants from the
#              [variant NAME] sections of its file (`hitchbench recipes NAME`
#              says which)
#   profiles   quiet/*.ini beside the recipes' files
#   metrics    the list an unknown --metric is refused with
#   targets    `hitchbench target list`
#   switches   the switch names `hitchbench run --help` lists

_hitchbench_commands="run recipes report matrix db import export ab compare calibrate regress site stalls profile frames flip plot quiet thaw pull interference-scan target push lab help"

# the options of a batch's runs, which ab and calibrate take too (without
# --order and --seed: ab makes its own plan), and run's own
_hitchbench_batch_opts="--rerun-invalid --warmup --window --db --no-db --out --display --stall-ms --percentile --min-frames --quiet -q --verbose -v --profile --no-quieting --help"
_hitchbench_run_opts="$_hitchbench_batch_opts --order --seed --switches --rounds --resume --plan --detach --follow --target --no-wait --no-pull --flip --segment --settle --flip-by-time --relay --turn"

_hitchbench_opts_run="$_hitchbench_run_opts"
_hitchbench_opts_recipes="--names --help"
_hitchbench_opts_report="--format --no-notes --stall-ms --percentile --metric --stalls --interfered --include-interfered --min-frames --db --machine --game --variant --batch --help"
_hitchbench_opts_matrix="--by --no-notes --metric --out --db --machine --game --interfered --include-interfered --min-frames --help"
_hitchbench_opts_import="--format --game --variant --out --process --hud-period --run --interval --warmup --db --no-db --help"
_hitchbench_opts_export="--format --out --window --help"
_hitchbench_opts_ab="$_hitchbench_batch_opts --resume --format --metric --effect --alpha --beta --max-rounds --design --max-minutes --segment --settle --turn"
_hitchbench_opts_compare="--format --no-notes --db --machine --metric --batch --cross-boot --magnitude --seed --paired --effect --alpha --beta --max-rounds --help"
_hitchbench_opts_calibrate="$_hitchbench_batch_opts --order --seed --rounds --effect --resamples --with --design --minutes"
_hitchbench_opts_regress="--db --machine --metric --format --no-notes --seed --help"
_hitchbench_opts_site="--db --out --metric --seed --help"
_hitchbench_opts_stalls="--format --no-notes --stall-ms --verbose -v --help"
_hitchbench_opts_profile="--frames --format --picture --span --stall-ms --top --vs --help"
_hitchbench_opts_frames="--window --help"
_hitchbench_opts_flip="--segments --format --stall-ms --effect --alpha --beta --help"
_hitchbench_opts_quiet="--profile --what --help"
_hitchbench_opts_thaw="--help"
_hitchbench_opts_pull="--delete --no-import --now --db --help"
_hitchbench_opts_interference_scan="--write --interfered --gamedb --help"
_hitchbench_opts_push="--arch --build-on-target --dry-run -n --verbose -v --help"
_hitchbench_opts_help=""

# commands with subcommands: the subcommands, then each one's options
_hitchbench_subs_db="import info upgrade push"
_hitchbench_opts_db_import="--db --stall-ms --percentile --min-frames --help"
_hitchbench_opts_db_info="--db --machine --format --help"
_hitchbench_opts_db_upgrade="--db --help"
_hitchbench_opts_db_push="--db --to --help"
_hitchbench_subs_plot="frames percentiles histogram matrix trend"
_hitchbench_opts_plot_frames="--stall-ms --out -o --name --title --help"
_hitchbench_opts_plot_percentiles="--stall-ms --out -o --name --title --help"
_hitchbench_opts_plot_histogram="--stall-ms --out -o --name --title --help"
_hitchbench_opts_plot_matrix="--out -o --name --help"
_hitchbench_opts_plot_trend="--metric --out -o --name --help"
_hitchbench_subs_target="add list remove check status"
_hitchbench_opts_target_add="--prefix --ssh-config --help"
_hitchbench_opts_target_list="--help"
_hitchbench_opts_target_remove="--help"
_hitchbench_opts_target_check="--verbose -v --help"
_hitchbench_opts_target_status="--now --help"
_hitchbench_subs_lab="init submit status cancel results ensure-kernel"
_hitchbench_opts_lab_init="--out --port --state-dir --munge-socket --slurm-user --cluster --help"
# a job's runs take run's options but those the job decides (--out, --no-db,
# --resume, --detach, --follow, --target, --no-wait, --no-pull, --plan)
_hitchbench_opts_lab_submit="--nodes --constraint --kernels --site --site-minutes --switches --rounds --order --seed --rerun-invalid --warmup --window --db --display --stall-ms --percentile --min-frames --quiet -q --verbose -v --profile --no-quieting --help"
_hitchbench_opts_lab_status="--help"
_hitchbench_opts_lab_cancel="--all --help"
_hitchbench_opts_lab_results="--db --help"
_hitchbench_opts_lab_ensure_kernel="--kexec --no-requeue --help"

# the helper programs
_hitchbench_opts_hitchbench_wadlump="--help"
_hitchbench_opts_hitchbench_sampler="--out --period-ms --duration --nice --once --wait-below --wait-sensors --wait-timeout --help"
_hitchbench_opts_hitchbench_profrec="--out --live --pid --hz --pages --max-stack --drain-ms --nice --duration --ready --help"
_hitchbench_opts_hitchbench_stallrec="--out --live --pid --period-ms --frames --xserver --cpu --nice --duration --nowrite --ready --cgroup --bpf --bpf-live --bpf-period-ms --bpf-min-us --bpf-stack-us --bpf-faults --bpf-all-threads --help"
_hitchbench_opts_hitchbench_input="--driver --game-log --display --xauth --name --dry-run --help"
_hitchbench_opts_hitchbench_intfwatch="--log --run-root --run-id --relay-id --harness --x-vt --ready --duration --scan --help"
_hitchbench_opts_hitchbench_waker="-m --mode -i --period -t --time -c --cpus -o --output --nice --threshold-us --fifo-prio --dma-latency --ready --help"
_hitchbench_opts_hitchbench_reboot="--dry-run --wish --log --grub --kexec --help"
_hitchbench_subs_hitchbench_prefetch="learn fetch run list show forget resident"
_hitchbench_opts_hitchbench_prefetch_learn="--pid --exe --dir --data --ready --help"
_hitchbench_opts_hitchbench_prefetch_fetch="--exe --pid --mb --reserve-mb --io --timeout --dir --ready --help"
_hitchbench_opts_hitchbench_prefetch_run="--exe --pid --mb --reserve-mb --io --timeout --dir --ready --log --help"
_hitchbench_opts_hitchbench_prefetch_list="--dir --help"
_hitchbench_opts_hitchbench_prefetch_show="--dir --help"
_hitchbench_opts_hitchbench_prefetch_forget="--dir --help"
_hitchbench_opts_hitchbench_prefetch_resident="--drop --help"

# Options that take a value (the next word), whatever the command.
_hitchbench_valued=" --flip --segment --settle --relay --turn --relay-id --design --minutes --max-minutes --switches --rounds --order --seed --resume --warmup --window --db --out --display --stall-ms --percentile --profile --target --format --metric --interfered --min-frames --machine --game --variant --by --process --hud-period --effect --alpha --beta --max-rounds --batch --magnitude --paired --resamples --with --name --title --what --gamedb --to --prefix --ssh-config --arch --port --state-dir --munge-socket --slurm-user --cluster --nodes --constraint --kernels --site --site-minutes --period-ms --duration --nice --wait-below --wait-sensors --wait-timeout --live --pid --frames --xserver --cpu --ready --cgroup --driver --game-log --xauth --log --run-root --run-id --harness --x-vt -m --mode -i --period -t --time -c --cpus -o --output --threshold-us --fifo-prio --wish --exe --dir --data --mb --reserve-mb --io --timeout --bpf --bpf-live --bpf-period-ms --bpf-min-us --bpf-stack-us --bpf-faults "

# The program completed: the word typed (~ expanded), else hitchbench.
_hitchbench_prog()
{
	local p=${COMP_WORDS[0]}
	[[ $p == hitchbench-* || $p == */hitchbench-* ]] && p=${p%-*}
	p=${p/#\~/$HOME}
	printf '%s\n' "${p:-hitchbench}"
}

_hitchbench_recipes()
{
	"$(_hitchbench_prog)" recipes --names 2>/dev/null
}

# The files of the recipes named (all of them without a name), one a line.
_hitchbench_recipe_files()
{
	"$(_hitchbench_prog)" recipes "$@" 2>/dev/null | sed -n 's/^  file: //p'
}

# The variants of the recipe named (or at the path) $1, and base.
_hitchbench_variants()
{
	local f line
	[[ -n $1 ]] || return 0
	f=$(_hitchbench_recipe_files "$1" | head -n 1)
	[[ -f $f ]] || return 0
	echo base
	while IFS= read -r line; do
		[[ $line =~ ^[[:blank:]]*\[variant[[:blank:]]+([A-Za-z0-9._-]+)[[:blank:]]*\] ]] && echo "${BASH_REMATCH[1]}"
	done < "$f"
}

# quiet/*.ini beside the recipes' files
_hitchbench_profiles()
{
	local d f n
	while IFS= read -r d; do
		for f in "$d"/quiet/*.ini; do
			[[ -f $f ]] || continue
			n=${f##*/}
			echo "${n%.ini}"
		done
	done < <(_hitchbench_recipe_files | sed 's|/[^/]*$||' | sort -u)
}

_hitchbench_metrics()
{
	"$(_hitchbench_prog)" report --metric .hitchbench-completion-probe 2>&1 >/dev/null |
		awk '/the metrics are:/ { on = 1; next } on && /^  / { for (i = 1; i <= NF; i++) print $i; next } { on = 0 }'
}

_hitchbench_targets()
{
	"$(_hitchbench_prog)" target list 2>/dev/null | awk '!/^#/ && NF { print $1 }'
}

_hitchbench_switches()
{
	"$(_hitchbench_prog)" run --help 2>/dev/null |
		awk '/^switches:/ { on = 1; next } on && /^ +[A-Z][A-Z0-9_]+ / { print $1 "=" }'
}

# COMPREPLY from a list of words (one a line or blank-separated) for $cur
_hitchbench_words()
{
	local IFS=$' \t\n'
	COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

_hitchbench_files()
{
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -f -- "$cur"))
}

_hitchbench_dirs()
{
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -d -- "$cur"))
}

# The value of option $1 for command $2 (its subcommand $3).
_hitchbench_value()
{
	case $1 in
	--format)
		case $2 in
		report) _hitchbench_words "table csv json markdown html" ;;
		compare) _hitchbench_words "table json markdown" ;;
		regress) _hitchbench_words "table tsv json" ;;
		stalls | ab | db | flip) _hitchbench_words "table json" ;;
		profile) _hitchbench_words "table folded svg json" ;;
		import) _hitchbench_words "mangohud presentmon frameview ocat capframex gallium-hud hook" ;;
		export) _hitchbench_words "mangohud presentmon capframex" ;;
		esac ;;
	--order) _hitchbench_words "rotate shuffle" ;;
	--picture) _hitchbench_words "flame frames" ;;
	--span) _hitchbench_words "window run" ;;
	--window) [[ $2 == export ]] && _hitchbench_words "window run" ;;
	--vs) _hitchbench_dirs ;;
	--by) _hitchbench_words "batch kernel" ;;
	--percentile) _hitchbench_words "nearest-rank linear" ;;
	--metric) _hitchbench_words "$(_hitchbench_metrics)" ;;
	--target) _hitchbench_words "$(_hitchbench_targets)" ;;
	--profile)
		_hitchbench_words "$(_hitchbench_profiles)"
		_hitchbench_files ;;
	--switches | --with)
		# the term being typed: after the last '+' (terms of a token) or
		# blank (tokens of the list)
		local pre=${cur%"${cur##*[+ ]}"} IFS=$'\n' w
		compopt -o nospace 2>/dev/null
		for w in - $(_hitchbench_switches); do
			[[ $pre$w == "$cur"* ]] && COMPREPLY+=("$pre$w")
		done ;;
	--arch) _hitchbench_words "amd64 arm64 ppc64 s390x" ;;
	--io) _hitchbench_words "be0 be1 be2 be3 be4 be5 be6 be7 idle" ;;
	--driver) _hitchbench_words "xtest uinput" ;;
	-m | --mode) _hitchbench_words "sleep kick probe" ;;
	--resume | --paired | --out | --gamedb | --state-dir | --dir | --data | --cgroup | --site) _hitchbench_dirs ;;
	--db | --interfered | --ssh-config | --to | --munge-socket | --frames | --live | --ready | --game-log | \
	--xauth | --log | --wish | --exe | -o | --output)
		_hitchbench_files ;;
	esac
}

# The arguments before the word being completed, from word $1 on, one a
# line: options and their values left out.
_hitchbench_args()
{
	local i w
	for ((i = $1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -* ]]; then
			[[ $w != *=* && $_hitchbench_valued == *" $w "* ]] && ((i++))
			continue
		fi
		printf '%s\n' "$w"
	done
}

# The positional argument of command $1 (subcommand $2) whose arguments
# start at word $3.
_hitchbench_positional()
{
	local cmd=$1 sub=$2 args n first
	args=$(_hitchbench_args "$3")
	n=$(printf '%s' "$args" | grep -c '^')
	first=${args%%$'\n'*}
	case $cmd${sub:+ $sub} in
	run | calibrate | "lab submit")
		if ((n == 0)); then
			_hitchbench_words "$(_hitchbench_recipes)"
			[[ $cmd == lab ]] && _hitchbench_files
		elif ((n == 1)); then
			_hitchbench_words "$(_hitchbench_variants "$first")"
		fi ;;
	ab)
		if ((n == 0)); then
			_hitchbench_words "$(_hitchbench_recipes)"
		elif ((n <= 2)); then
			_hitchbench_words "$(_hitchbench_variants "$first")"
		fi ;;
	compare | regress)
		((n == 0)) && _hitchbench_words "$(_hitchbench_recipes)" ;;
	report | matrix | stalls | profile | frames | export | interference-scan | "db import" | "plot frames" | "plot percentiles" | \
	"plot histogram")
		_hitchbench_dirs ;;
	import | "plot matrix" | "plot trend" | "lab init")
		_hitchbench_files ;;
	pull | push | "target remove" | "target check" | "target status")
		((n == 0)) && _hitchbench_words "$(_hitchbench_targets)" ;;
	recipes)
		_hitchbench_words "$(_hitchbench_recipes)" ;;
	help)
		((n == 0)) && _hitchbench_words "$_hitchbench_commands" ;;
	esac
}

# Completes words for program $1 (hitchbench or a helper's name, its
# variables' prefix) from word 1 on.
_hitchbench_complete()
{
	local prog=$1 cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= sub= first=1 var subs
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if [[ $prog == hitchbench ]]; then
		if ((COMP_CWORD == 1)); then
			[[ $cur == -* ]] && _hitchbench_words "--help --version" || _hitchbench_words "$_hitchbench_commands"
			return 0
		fi
		cmd=${COMP_WORDS[1]}
		first=2
		var=_hitchbench_subs_${cmd//-/_}
	else
		var=_hitchbench_subs_${prog//-/_}
	fi
	# a command with subcommands: the first word after it
	subs=${!var}
	if [[ -n $subs ]]; then
		if ((COMP_CWORD == first)); then
			_hitchbench_words "$subs --help"
			return 0
		fi
		sub=${COMP_WORDS[first]}
		((first++))
	fi
	# a value: --opt=VALUE or the word after a valued option
	if [[ $cur == --*=* ]]; then
		local opt=${cur%%=*}
		cur=${cur#*=}
		_hitchbench_value "$opt" "$cmd" "$sub"
		return 0
	fi
	if [[ $prev == -* && $_hitchbench_valued == *" $prev "* ]] && ((COMP_CWORD > first - 1)); then
		_hitchbench_value "$prev" "$cmd" "$sub"
		return 0
	fi
	if [[ $cur == -* ]]; then
		if [[ $prog == hitchbench ]]; then
			var=_hitchbench_opts_${cmd//-/_}${sub:+_${sub//-/_}}
		else
			var=_hitchbench_opts_${prog//-/_}${sub:+_${sub//-/_}}
		fi
		_hitchbench_words "${!var}"
		return 0
	fi
	[[ $prog == hitchbench ]] && _hitchbench_positional "$cmd" "$sub" "$first"
	[[ $prog == hitchbench-prefetch && $sub == resident ]] && _hitchbench_files
	[[ $prog == hitchbench-wadlump ]] && _hitchbench_files
	return 0
}

_hitchbench()
{
	_hitchbench_complete hitchbench
}

_hitchbench_helper()
{
	local name=${COMP_WORDS[0]##*/}
	_hitchbench_complete "$name"
}

complete -F _hitchbench hitchbench
complete -F _hitchbench_helper hitchbench-wadlump hitchbench-sampler hitchbench-stallrec hitchbench-profrec hitchbench-input \
	hitchbench-intfwatch hitchbench-waker hitchbench-prefetch hitchbench-reboot
