/*
 * slurm.conf for a small lab, made from the machines file by `hitchbench
 * lab init`, and the steps that bring the cluster up. Every setting says
 * why it is there: most are about what slurmd does on a node while a
 * batch measures (nothing it can leave undone), the rest about the lab's
 * batches (one a node, requeued when a node dies, a reboot into a kernel
 * through our own RebootProgram).
 */
#include "lab/lab.h"

#include <stdlib.h>

/* The places the configuration names, for the file and the steps. */
struct lab_conf_paths {
	char *ctld_state, *slurmd_spool, *log_dir, *pid_dir, *jobcomp;
};

static void lab_conf_paths(const struct lab_conf_opts *o, struct lab_conf_paths *p)
{
	const char *d = o->state_dir;

	p->ctld_state = d ? xasprintf("%s/slurmctld", d) : xstrdup("/var/spool/slurmctld");
	p->slurmd_spool = d ? xasprintf("%s/slurmd-%%n", d) : xstrdup("/var/spool/slurmd");
	p->log_dir = d ? xasprintf("%s/log", d) : xstrdup("/var/log/slurm");
	p->pid_dir = d ? xstrdup(d) : xstrdup("/run");
	p->jobcomp = xasprintf("%s/jobcomp.txt", p->log_dir);
}

static void lab_conf_paths_release(struct lab_conf_paths *p)
{
	free(p->ctld_state);
	free(p->slurmd_spool);
	free(p->log_dir);
	free(p->pid_dir);
	free(p->jobcomp);
}

static void head(struct strbuf *out, const struct lab_machines *m, const struct lab_conf_opts *o,
		 const struct lab_conf_paths *p)
{
	strbuf_addf(out,
		"# slurm.conf of a hitchbench lab, written by 'hitchbench lab init' (docs/lab.md).\n"
		"# The same file goes to every machine of the lab: slurmd and slurmctld compare\n"
		"# their copies and complain when they differ.\n"
		"ClusterName=%s\n"
		"SlurmctldHost=%s(%s)\n"
		"SlurmUser=%s\n"
		"SlurmdUser=root\n"
		"SlurmctldPort=%d\n"
		"SlurmdPort=%d\n",
		o->cluster, m->controller.name, m->controller.address, o->slurm_user, o->port, o->port + 1);
	strbuf_addstr(out,
		"# munge signs every message between the daemons and the commands: the same\n"
		"# key on every machine (docs/lab.md, step 1)\n"
		"AuthType=auth/munge\n"
		"CredType=cred/munge\n");
	if (o->munge_socket)
		strbuf_addf(out, "AuthInfo=socket=%s\n", o->munge_socket);
	strbuf_addf(out,
		"StateSaveLocation=%s\n"
		"SlurmdSpoolDir=%s\n"
		"SlurmctldPidFile=%s/slurmctld.pid\n"
		"SlurmdPidFile=%s/slurmd-%%n.pid\n"
		"SlurmctldLogFile=%s/slurmctld.log\n"
		"SlurmdLogFile=%s/slurmd-%%n.log\n"
		"# Debian's slurm has no mail program configured: no mail, no error about it\n"
		"MailProg=/bin/true\n"
		"MpiDefault=none\n",
		p->ctld_state, p->slurmd_spool, p->pid_dir, p->pid_dir, p->log_dir, p->log_dir);
}

/* What keeps slurmd quiet while a batch measures: each line is a timer or
 * a poll of slurmd's (or of a plugin in it) that would wake on the node
 * during a measured window and is turned off or made rare. */
static void quiet_settings(struct strbuf *out)
{
	strbuf_addstr(out,
		"\n# ---- slurmd stays quiet while a batch measures ----\n"
		"# No health check program: slurmd would run it on every node every interval,\n"
		"# a fork and a script in the middle of a measured window.\n"
		"HealthCheckInterval=0\n"
		"# No job accounting gather: jobacct_gather/linux reads /proc of every task of\n"
		"# the job (the runner, the game, its helpers) every 30 s by default; none,\n"
		"# and a frequency of 0 in case a plugin is set again.\n"
		"JobAcctGatherType=jobacct_gather/none\n"
		"JobAcctGatherFrequency=0\n"
		"# No energy, profiling, interconnect or file system polling: each would be a\n"
		"# thread of slurmd waking on a timer (RAPL, IPMI, HDF5 samples, counters).\n"
		"AcctGatherEnergyType=acct_gather_energy/none\n"
		"AcctGatherNodeFreq=0\n"
		"AcctGatherProfileType=acct_gather_profile/none\n"
		"AcctGatherInterconnectType=acct_gather_interconnect/none\n"
		"AcctGatherFilesystemType=acct_gather_filesystem/none\n"
		"# slurmctld pings each node every SlurmdTimeout/3 s and asks it to register now\n"
		"# and then: an hour makes that one message every 20 minutes. The cost is that\n"
		"# a dead node is noticed late; a node that reboots registers at once and its\n"
		"# job is requeued then.\n"
		"SlurmdTimeout=3600\n"
		"# The job's processes are found by walking /proc only when the job is\n"
		"# signalled or ends (proctrack/linuxproc), not kept in cgroups Slurm makes:\n"
		"# the runner places and pins the game itself (GAMECPU, its cgroup), and no\n"
		"# cgroup.conf is needed. No task plugin: nothing binds or re-binds the job's\n"
		"# tasks to CPUs behind the runner's back.\n"
		"ProctrackType=proctrack/linuxproc\n"
		"TaskPlugin=task/none\n"
		"# slurmd logs what it does, not a debug line for every RPC\n"
		"SlurmdDebug=info\n");
}

static void batch_settings(struct strbuf *out, const struct lab_conf_opts *o, const struct lab_conf_paths *p)
{
	strbuf_addf(out,
		"\n# ---- the lab's batches ----\n"
		"# A job is a whole node (select/linear, an exclusive partition): nothing else\n"
		"# runs beside a batch.\n"
		"SchedulerType=sched/backfill\n"
		"SelectType=select/linear\n"
		"# A job whose node dies is requeued (sbatch --requeue by lab submit as well);\n"
		"# the requeued job resumes its batch (docs/lab.md, \"Requeue and resume\").\n"
		"JobRequeue=1\n"
		"# A node that comes back (a reboot, slurmd restarted) takes jobs again once it\n"
		"# registers with a valid configuration, without an administrator's resume.\n"
		"ReturnToService=2\n"
		"# Kernel campaigns: 'scontrol reboot' runs this on the node; it boots the node\n"
		"# into the kernel the job wished for (hitchbench lab ensure-kernel).\n"
		"RebootProgram=%s\n"
		"# a reboot may take that long before the node is declared down\n"
		"ResumeTimeout=900\n"
		"# scancel and a requeue send SIGTERM first: the runner stops the game and\n"
		"# thaws the machine (its quieting undone) before SIGKILL comes\n"
		"KillWait=60\n"
		"# No slurmdbd (it needs MariaDB): a job completion log instead, which lab\n"
		"# status reads for the jobs squeue has forgotten.\n"
		"AccountingStorageType=accounting_storage/none\n"
		"JobCompType=jobcomp/filetxt\n"
		"JobCompLoc=%s\n",
		o->reboot_program, p->jobcomp);
}

void lab_conf_write(struct strbuf *out, const struct lab_machines *m, const struct lab_conf_opts *o)
{
	struct lab_conf_paths p;

	lab_conf_paths(o, &p);
	head(out, m, o, &p);
	quiet_settings(out);
	batch_settings(out, o, &p);
	strbuf_addstr(out, "\n# ---- the machines (the machines file) ----\n");
	for (size_t i = 0; i < m->n_nodes; i++) {
		const struct lab_machine *n = &m->nodes[i];

		strbuf_addf(out, "NodeName=%s NodeAddr=%s CPUs=%d RealMemory=%ld", n->name, n->address, n->cpus,
			    n->memory_mb);
		if (n->features)
			strbuf_addf(out, " Features=%s", n->features);
		strbuf_addstr(out, " State=UNKNOWN\n");
	}
	strbuf_addstr(out,
		"# one partition of every node, each job a whole node (OverSubscribe=EXCLUSIVE)\n"
		"PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE\n");
	lab_conf_paths_release(&p);
}

void lab_conf_instructions(struct strbuf *out, const struct lab_machines *m, const struct lab_conf_opts *o,
			   const char *conf_dir)
{
	struct lab_conf_paths p;
	const char *key = o->munge_socket ? "the key munged of this lab reads" : "/etc/munge/munge.key";

	lab_conf_paths(o, &p);
	strbuf_addf(out,
		"The lab's Slurm, step by step (docs/lab.md says the same):\n"
		"1. munge: one key on every machine. On %s: 'mungekey -c -k /etc/munge/munge.key'\n"
		"   (Debian's package made one already: keep it); copy it to each node\n"
		"   (scp /etc/munge/munge.key NODE:/etc/munge/), 'chown munge:munge' and\n"
		"   'chmod 400' it there, and start munged on every machine ('service munge\n"
		"   start', or /usr/sbin/munged). Check: 'munge -n | ssh NODE unmunge'.\n"
		"   (%s)\n", m->controller.name, key);
	strbuf_addf(out,
		"2. %s/slurm.conf goes to /etc/slurm/slurm.conf on every machine, the same file.\n"
		"   No cgroup.conf: the job's processes are tracked without cgroups\n"
		"   (proctrack/linuxproc, task/none).\n", conf_dir);
	strbuf_addf(out,
		"3. Directories: on %s, %s owned by %s; on each node, %s;\n"
		"   %s everywhere.\n", m->controller.name, p.ctld_state, o->slurm_user, p.slurmd_spool, p.log_dir);
	strbuf_addf(out,
		"4. Start slurmctld on %s, and slurmd on each node:", m->controller.name);
	for (size_t i = 0; i < m->n_nodes; i++)
		strbuf_addf(out, " %s", m->nodes[i].name);
	strbuf_addstr(out,
		".\n   A node's host name must be its NodeName (else 'slurmd -N NAME').\n"
		"   Check: 'sinfo' shows the nodes idle.\n");
	strbuf_addf(out,
		"5. On each node: hitchbench at the same path as here ('hitchbench push'), its\n"
		"   RebootProgram %s and /var/lib/hitchbench (mode 0755, owned\n"
		"   by the jobs' user: the kernel wish) for kernel campaigns, the results directory's lab/\n"
		"   shared (NFS) so that status sees the progress, and the database every\n"
		"   node reaches (--db: a PostgreSQL URL, or an SQLite file on the share).\n"
		"6. 'hitchbench lab submit GAME \"VARIANTS\" ROUNDS' (or a matrix file), then\n"
		"   'hitchbench lab status' and 'hitchbench lab results'.\n", o->reboot_program);
	lab_conf_paths_release(&p);
}
