/*
 * System call names by this machine's numbers (syscallname.h): the calls a
 * game's main thread is found blocked in, each as <sys/syscall.h> names it
 * where this architecture has it.
 */
#include "system/syscallname.h"
#include "base/util.h"

#include <sys/syscall.h>

#define SC(n, fd) { SYS_##n, #n, fd }
static const struct sysname sysnames[] = {
#ifdef SYS_read
	SC(read, true),
#endif
#ifdef SYS_write
	SC(write, true),
#endif
#ifdef SYS_pread64
	SC(pread64, true),
#endif
#ifdef SYS_pwrite64
	SC(pwrite64, true),
#endif
#ifdef SYS_readv
	SC(readv, true),
#endif
#ifdef SYS_writev
	SC(writev, true),
#endif
#ifdef SYS_preadv
	SC(preadv, true),
#endif
#ifdef SYS_preadv2
	SC(preadv2, true),
#endif
#ifdef SYS_pwritev
	SC(pwritev, true),
#endif
#ifdef SYS_ioctl
	SC(ioctl, true),
#endif
#ifdef SYS_fsync
	SC(fsync, true),
#endif
#ifdef SYS_fdatasync
	SC(fdatasync, true),
#endif
#ifdef SYS_sync_file_range
	SC(sync_file_range, true),
#endif
#ifdef SYS_getdents64
	SC(getdents64, true),
#endif
#ifdef SYS_recvmsg
	SC(recvmsg, true),
#endif
#ifdef SYS_recvfrom
	SC(recvfrom, true),
#endif
#ifdef SYS_sendmsg
	SC(sendmsg, true),
#endif
#ifdef SYS_sendto
	SC(sendto, true),
#endif
#ifdef SYS_epoll_wait
	SC(epoll_wait, true),
#endif
#ifdef SYS_epoll_pwait
	SC(epoll_pwait, true),
#endif
#ifdef SYS_epoll_pwait2
	SC(epoll_pwait2, true),
#endif
#ifdef SYS_io_uring_enter
	SC(io_uring_enter, true),
#endif
#ifdef SYS_fallocate
	SC(fallocate, true),
#endif
#ifdef SYS_ftruncate
	SC(ftruncate, true),
#endif
#ifdef SYS_flock
	SC(flock, true),
#endif
#ifdef SYS_fcntl
	SC(fcntl, true),
#endif
#ifdef SYS_accept4
	SC(accept4, true),
#endif
#ifdef SYS_connect
	SC(connect, true),
#endif
#ifdef SYS_futex
	SC(futex, false),
#endif
#ifdef SYS_poll
	SC(poll, false),
#endif
#ifdef SYS_ppoll
	SC(ppoll, false),
#endif
#ifdef SYS_select
	SC(select, false),
#endif
#ifdef SYS_pselect6
	SC(pselect6, false),
#endif
#ifdef SYS_nanosleep
	SC(nanosleep, false),
#endif
#ifdef SYS_clock_nanosleep
	SC(clock_nanosleep, false),
#endif
#ifdef SYS_sched_yield
	SC(sched_yield, false),
#endif
#ifdef SYS_open
	SC(open, false),
#endif
#ifdef SYS_openat
	SC(openat, false),
#endif
#ifdef SYS_stat
	SC(stat, false),
#endif
#ifdef SYS_newfstatat
	SC(newfstatat, false),
#endif
#ifdef SYS_statx
	SC(statx, false),
#endif
#ifdef SYS_mmap
	SC(mmap, false),
#endif
#ifdef SYS_munmap
	SC(munmap, false),
#endif
#ifdef SYS_mprotect
	SC(mprotect, false),
#endif
#ifdef SYS_madvise
	SC(madvise, false),
#endif
#ifdef SYS_brk
	SC(brk, false),
#endif
#ifdef SYS_wait4
	SC(wait4, false),
#endif
#ifdef SYS_waitid
	SC(waitid, false),
#endif
#ifdef SYS_execve
	SC(execve, false),
#endif
#ifdef SYS_exit_group
	SC(exit_group, false),
#endif
#ifdef SYS_io_getevents
	SC(io_getevents, false),
#endif
#ifdef SYS_sync
	SC(sync, false),
#endif
#ifdef SYS_rt_sigtimedwait
	SC(rt_sigtimedwait, false),
#endif
#ifdef SYS_pause
	SC(pause, false),
#endif
};

const struct sysname *sysname_of(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(sysnames); i++)
		if (sysnames[i].nr == nr)
			return &sysnames[i];
	return NULL;
}

