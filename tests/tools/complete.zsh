# zsh -f tests/tools/complete.zsh COMPLETION-DIR DIR LINE: the line the zsh
# completion in COMPLETION-DIR makes of LINE when TAB is pressed after it,
# in an interactive zsh (compinit, under zpty) started in DIR. Prints the
# terminal's output, escape sequences removed. For t0030.
setopt extendedglob
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "PROMPT='%% '; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D; cd ${(q)2}; print READY"
out=
for i in {1..100}; do
	zpty -r -t z chunk && out+=$chunk
	[[ $out == *$'\n'READY* ]] && break
	sleep 0.1
done
zpty -w -n z "$3"$'\t'
# what the TAB did, once the terminal is quiet for half a second
out=
for i in {1..100}; do
	if zpty -r -t z chunk; then
		out+=$chunk
		quiet=0
	else
		((++quiet >= 5)) && break
		sleep 0.1
	fi
done
zpty -d z
print -r -- "${out//$'\e'\[[0-9;?]#[a-zA-Z]/}"
