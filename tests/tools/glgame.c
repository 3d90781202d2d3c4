/*
 * glgame: a stand-in game that renders through real GL (Mesa's llvmpipe
 * on Xvfb), for the tests of what sees inside a game's frames: a shader
 * compiled in the middle of play, and a stretch of the game's own CPU
 * work in a function a profiler can name. The fake game presents through
 * a stub and has no GL to compile anything with; this one opens a small
 * GLX window, draws a few triangles with a small shader program each
 * frame and calls glXSwapBuffers, which the preloaded frame hook records.
 *
 *   glgame [--fps N] [--seconds S] [--frames N] [--compile-at FRAME]...
 *          [--busy-at FRAME:MS]... [--shader-salt N] [--print-frames]
 *
 * --fps N              frames per second (default 60), on absolute deadlines;
 *                      after a long frame the schedule restarts from its present
 *                      rather than catching up, as a game's frame loop does
 * --seconds S          exit after S seconds (decimals allowed); 0, the default: never
 * --frames N           exit after N frames (N presents); 0, the default: never
 * --compile-at FRAME   before FRAME's draw, compile and link a new GLSL program
 *                      (a fragment shader of a long unrolled chain of math, its
 *                      source unique to the frame and the salt), draw FRAME with
 *                      it (llvmpipe JIT-compiles the shader at the first draw)
 *                      and glFinish(), so the whole cost lands in FRAME; prints
 *                      "compiled FRAME N ms"
 * --busy-at FRAME:MS   before FRAME's draw, spin MS ms on the CPU in
 *                      glgame_busy_named_loop(); prints "busy FRAME MS ms"
 * --shader-salt N      the salt in every compiled shader's source (0 to 999999);
 *                      by default one drawn from the clock and the pid, so no
 *                      shader cache can answer: Mesa's disk cache is kept in
 *                      the user's passwd home (not $HOME) from run to run. A
 *                      fixed salt gives every run the same sources, for a test
 *                      of a kept cache (SHADERCACHE=warm) answering the second
 * --print-frames       print "frame N" after each present
 *
 * Frames count from 0: frame N is the present of the (N+1)th
 * glXSwapBuffers, present N in the frame file (whose presents count from
 * 0 too), and its frame is the time from present N-1 to present N: the
 * Nth data row of `hitchbench frames` (whose first row is present 1's), so
 * an event at frame N lengthens that row. An event at frame 0 comes before
 * the first present, where no frame is measured.
 *
 * Built with frame pointers and linked with -rdynamic; the functions a
 * profile should name are neither static nor inlined, so their symbols are
 * in .symtab and .dynsym. Without an X display or GLX there, it exits 77
 * (HB_EXIT_SKIP) saying why.
 */
#define GL_GLEXT_PROTOTYPES
#include "base/exitcodes.h"
#include "base/timeutil.h"
#include "base/util.h"
#include "glxwindow.h"

#include <GL/gl.h>
#include <GL/glext.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GLGAME_MAX_EVENTS 64
#define GLGAME_WIDTH 320
#define GLGAME_HEIGHT 240
/* Steps of the heavy fragment shader's chain: 180 to 330 ms of compile and
 * JIT on llvmpipe (Mesa 22.3, the development VM), 5 to 10 frames at 30
 * fps. The cost grows faster than the steps: 5 took 0.1 s, 20 0.45 s, 80
 * 3 s, 400 a minute. */
#define GLGAME_HEAVY_STEPS 10

/* A --compile-at or --busy-at. */
struct glgame_event {
	uint64_t frame;
	uint64_t busy_ms;       /* 0: a compile */
};

struct glgame_opts {
	double fps;
	uint64_t run_ns;        /* 0: no limit */
	uint64_t max_frames;    /* 0: no limit */
	bool print_frames;
	struct glgame_event events[GLGAME_MAX_EVENTS];
	unsigned n_events;
};

/* The window, its context and the program every frame draws with. */
struct glgame {
	struct glx_window w;
	GLuint vbo;
	GLuint program;
	unsigned salt;          /* --shader-salt: in every compiled shader's source */
};

/* Not static, never inlined: what a profiler is to find by name (the
 * prototypes are here for -Wmissing-prototypes). */
uint64_t glgame_busy_named_loop(uint64_t ms);
GLuint glgame_compile_named_program(struct glgame *g, uint64_t frame);

static const char vertex_src[] =
	"#version 120\n"
	"attribute vec2 a_pos;\n"
	"uniform float u_angle;\n"
	"varying vec2 v_pos;\n"
	"void main() {\n"
	"	float c = cos(u_angle), s = sin(u_angle);\n"
	"	v_pos = a_pos;\n"
	"	gl_Position = vec4(c * a_pos.x - s * a_pos.y, s * a_pos.x + c * a_pos.y, 0.0, 1.0);\n"
	"}\n";

static const char fragment_src[] =
	"#version 120\n"
	"varying vec2 v_pos;\n"
	"void main() {\n"
	"	gl_FragColor = vec4(0.5 + 0.5 * v_pos, 0.4, 1.0);\n"
	"}\n";

/* Three triangles, a pair of floats a corner. */
static const GLfloat triangles[] = {
	-0.9f, -0.8f, -0.3f, -0.8f, -0.6f, -0.2f,
	-0.3f, 0.1f, 0.3f, 0.1f, 0.0f, 0.7f,
	0.3f, -0.8f, 0.9f, -0.8f, 0.6f, -0.2f,
};

/* The compiler's log on stderr, for a shader or program that failed. */
static void print_gl_log(GLuint obj, bool is_program)
{
	char log[4096] = "";

	if (is_program)
		glGetProgramInfoLog(obj, sizeof(log), NULL, log);
	else
		glGetShaderInfoLog(obj, sizeof(log), NULL, log);
	fprintf(stderr, "glgame: %s\n", log);
}

/* One shader compiled: its name, or 0 (the log said on stderr). */
static GLuint compile_shader(GLenum type, const char *src)
{
	GLuint sh = glCreateShader(type);
	GLint ok = GL_FALSE;

	glShaderSource(sh, 1, &src, NULL);
	glCompileShader(sh);
	glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		print_gl_log(sh, false);
		glDeleteShader(sh);
		return 0;
	}
	return sh;
}

/* The two shaders compiled and linked, a_pos at attribute 0: the program, or 0. */
static GLuint link_program(const char *vs_src, const char *fs_src)
{
	GLuint vs = compile_shader(GL_VERTEX_SHADER, vs_src);
	GLuint fs = vs ? compile_shader(GL_FRAGMENT_SHADER, fs_src) : 0;
	GLuint prog = 0;
	GLint ok = GL_FALSE;

	if (!fs)
		goto out;
	prog = glCreateProgram();
	glAttachShader(prog, vs);
	glAttachShader(prog, fs);
	glBindAttribLocation(prog, 0, "a_pos");
	glLinkProgram(prog);
	glGetProgramiv(prog, GL_LINK_STATUS, &ok);
	if (!ok) {
		print_gl_log(prog, true);
		glDeleteProgram(prog);
		prog = 0;
	}
out:
	if (vs)
		glDeleteShader(vs);
	if (fs)
		glDeleteShader(fs);
	return prog;
}

/*
 * --compile-at: a new program whose fragment shader is a chain of
 * GLGAME_HEAVY_STEPS steps of transcendental math on the interpolated
 * position, every step's constants its own (nothing to fold or share) and
 * the result the colour (nothing to drop). The constant k_unique holds the
 * frame and the salt, so no two compiles of a process are the same source.
 * The program, or 0.
 */
__attribute__((noinline)) GLuint glgame_compile_named_program(struct glgame *g, uint64_t frame)
{
	struct strbuf fs = STRBUF_INIT;
	GLuint prog;

	strbuf_addf(&fs,
		    "#version 120\n"
		    "varying vec2 v_pos;\n"
		    "const float k_unique = %" PRIu64 ".%06u;\n"
		    "void main() {\n"
		    "	vec4 a = vec4(v_pos, fract(k_unique), 1.0);\n"
		    "	vec4 b = a.yzwx * 0.5;\n",
		    frame, g->salt);
	for (unsigned i = 1; i <= GLGAME_HEAVY_STEPS; i++)
		strbuf_addf(&fs,
			    "	a = a * %u.0e-4 + sin(b.yzwx * %u.0e-3 + a) * 0.5;\n"
			    "	b = fract(b * 0.97 + cos(a.wxyz * %u.0e-3) + vec4(%u.0e-5));\n",
			    10000 - i, 500 + i, 700 + i, i);
	strbuf_addstr(&fs, "	gl_FragColor = vec4(fract(a.xyz + b.xyz), 1.0);\n}\n");
	prog = link_program(vertex_src, fs.buf);
	strbuf_release(&fs);
	return prog;
}

/* --busy-at: MS ms of the CPU, the clock read between chunks of integer
 * work so that the samples land in this function, not in the clock's. */
__attribute__((noinline)) uint64_t glgame_busy_named_loop(uint64_t ms)
{
	uint64_t end = mono_ns() + ms * NSEC_PER_MSEC, x = ms | 1;

	do {
		for (unsigned i = 0; i < 4096; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
	} while (mono_ns() < end);
	return x;
}

/* Opens the window and makes the context current, with the small program
 * and the triangles' buffer. 0; -ENODEV when there is no display or GLX to
 * run on (said on stderr); -EIO when GL failed. */
static int glgame_open(struct glgame *g)
{
	int r = glx_window_open(&g->w, "glgame", "hitchbench glgame", GLGAME_WIDTH, GLGAME_HEIGHT);

	if (r < 0)
		return r;
	g->program = link_program(vertex_src, fragment_src);
	if (!g->program)
		return -EIO;
	glGenBuffers(1, &g->vbo);
	glBindBuffer(GL_ARRAY_BUFFER, g->vbo);
	glBufferData(GL_ARRAY_BUFFER, sizeof(triangles), triangles, GL_STATIC_DRAW);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
	glEnableVertexAttribArray(0);
	glViewport(0, 0, GLGAME_WIDTH, GLGAME_HEIGHT);
	return glGetError() == GL_NO_ERROR ? 0 : -EIO;
}

static void glgame_close(struct glgame *g)
{
	if (g->w.ctx) {
		if (g->program)
			glDeleteProgram(g->program);
		if (g->vbo)
			glDeleteBuffers(1, &g->vbo);
	}
	glx_window_close(&g->w);
}

/* One frame's triangles with prog, turned by the frame's number. */
static void draw(struct glgame *g, GLuint prog, uint64_t frame)
{
	glClearColor(0.1f, 0.1f, 0.15f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glUseProgram(prog);
	glUniform1f(glGetUniformLocation(prog, "u_angle"), (float)(frame % 360) * 0.0174533f);
	glDrawArrays(GL_TRIANGLES, 0, 9);
}

/* Runs frame's events, then draws it (with a freshly compiled program
 * when one is due). 0, or -EIO when a compile failed. */
static int frame_work(struct glgame *g, const struct glgame_opts *o, uint64_t frame)
{
	GLuint prog = g->program;

	for (unsigned i = 0; i < o->n_events; i++) {
		const struct glgame_event *ev = &o->events[i];
		volatile uint64_t sink;
		uint64_t t0;

		if (ev->frame != frame)
			continue;
		t0 = mono_ns();
		if (ev->busy_ms) {
			sink = glgame_busy_named_loop(ev->busy_ms);
			(void)sink;
			printf("busy %" PRIu64 " %" PRIu64 " ms\n", frame, ev->busy_ms);
			fflush(stdout);
			continue;
		}
		if (prog != g->program)
			glDeleteProgram(prog);
		prog = glgame_compile_named_program(g, frame);
		if (!prog)
			return -EIO;
		draw(g, prog, frame);
		glFinish();
		printf("compiled %" PRIu64 " %" PRIu64 " ms\n", frame, (uint64_t)((mono_ns() - t0) / NSEC_PER_MSEC));
		fflush(stdout);
	}
	if (prog != g->program)
		glDeleteProgram(prog);
	else
		draw(g, prog, frame);
	return 0;
}

static int run(struct glgame *g, const struct glgame_opts *o)
{
	uint64_t period = (uint64_t)((double)NSEC_PER_SEC / o->fps);
	uint64_t start = mono_ns(), deadline = start, now;

	for (uint64_t frame = 0; !o->max_frames || frame < o->max_frames; frame++) {
		if (o->run_ns && mono_ns() - start >= o->run_ns)
			break;
		if (frame_work(g, o, frame) < 0)
			return HB_EXIT_FAILURE;
		glXSwapBuffers(g->w.dpy, g->w.win);
		if (o->print_frames) {
			printf("frame %" PRIu64 "\n", frame);
			fflush(stdout);
		}
		deadline += period;
		now = mono_ns();
		if (deadline + period < now)
			deadline = now; /* fell behind: no burst of catch-up frames */
		sleep_until(deadline, NULL);
	}
	return HB_EXIT_OK;
}

/* FRAME or FRAME:MS into an event. */
static int parse_event(struct glgame_opts *o, const char *arg, bool is_busy)
{
	struct glgame_event *ev;
	char buf[64], *colon;

	if (o->n_events == GLGAME_MAX_EVENTS || strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	ev = &o->events[o->n_events];
	memset(ev, 0, sizeof(*ev));
	colon = strchr(buf, ':');
	if (is_busy) {
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		if (safe_atou64(colon + 1, &ev->busy_ms) < 0 || ev->busy_ms == 0 || ev->busy_ms > 3600 * 1000)
			return -EINVAL;
	} else if (colon) {
		return -EINVAL;
	}
	if (safe_atou64(buf, &ev->frame) < 0)
		return -EINVAL;
	o->n_events++;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: glgame [--fps N] [--seconds S] [--frames N] [--compile-at FRAME]...\n"
		   "              [--busy-at FRAME:MS]... [--shader-salt N] [--print-frames]\n"
		   "  frames count from 0: frame N is the present of the (N+1)th glXSwapBuffers\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fps", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "compile-at", required_argument, NULL, 'c' },
		{ "busy-at", required_argument, NULL, 'b' },
		{ "shader-salt", required_argument, NULL, 'S' },
		{ "print-frames", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct glgame_opts o = { .fps = 60 };
	struct glgame g = { 0 };
	bool salt_given = false;
	uint64_t v;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (safe_atou64(optarg, &v) < 0 || v == 0 || v > 100000) {
				fprintf(stderr, "glgame: --fps wants 1 to 100000, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			o.fps = (double)v;
			break;
		case 's':
			if (safe_atosec_ns(optarg, (uint64_t)HB_MAX_DURATION_S * NSEC_PER_SEC, &o.run_ns) < 0) {
				fprintf(stderr, "glgame: --seconds wants a number of seconds, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'n':
			if (safe_atou64(optarg, &o.max_frames) < 0) {
				fprintf(stderr, "glgame: --frames wants a number, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'c':
		case 'b':
			if (parse_event(&o, optarg, c == 'b') < 0) {
				fprintf(stderr, "glgame: bad --%s '%s' (or more than %d events)\n",
					c == 'b' ? "busy-at FRAME:MS" : "compile-at FRAME", optarg, GLGAME_MAX_EVENTS);
				return HB_EXIT_USAGE;
			}
			break;
		case 'S':
			if (safe_atou64(optarg, &v) < 0 || v > 999999) {
				fprintf(stderr, "glgame: --shader-salt wants 0 to 999999, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			g.salt = (unsigned)v;
			salt_given = true;
			break;
		case 'p':
			o.print_frames = true;
			break;
		case 'h':
			usage(stdout);
			return HB_EXIT_OK;
		default:
			usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}

	/* A compile answered from a shader cache would cost nothing. */
	if (!salt_given)
		g.salt = (unsigned)((mono_ns() ^ (uint64_t)getpid()) % 1000000);
	r = glgame_open(&g);
	if (r == -ENODEV)
		r = HB_EXIT_SKIP;
	else if (r < 0)
		r = HB_EXIT_FAILURE;
	else
		r = run(&g, &o);
	glgame_close(&g);
	if (r == HB_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
		fprintf(stderr, "glgame: cannot write to stdout: %s\n", strerror(errno));
		r = HB_EXIT_FAILURE;
	}
	return r;
}
