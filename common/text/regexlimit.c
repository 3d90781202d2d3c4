/*
 * Complexity limits on POSIX extended regexes from files (see
 * regexlimit.h). The walk knows just enough of the ERE syntax to find
 * atoms, groups and their repetitions; anything it takes for a literal
 * that is not one is left for regcomp() to refuse.
 */
#include "text/regexlimit.h"
#include "base/util.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* The end of a bracket expression starting at p ('['): past its ']'. A
 * ']' first (after an optional '^') is a member; so are the "[:alpha:]",
 * "[=a=]" and "[.-.]" inside. NULL when it never closes. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char close = p[1];
			const char *q = p + 2;

			while (*q && !(q[0] == close && q[1] == ']'))
				q++;
			if (!*q)
				return NULL;
			p = q + 2;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : NULL;
}

/* A bound "{m}", "{m,}" or "{m,n}" at p: the count a repetition copies
 * its atom (the larger number), *end past it. -1 when it is no bound
 * (regcomp then decides), -2 when a number is past the limit. */
static long bound_count(const char *p, const char **end)
{
	long m = 0, n = -1;

	if (!isdigit((unsigned char)*++p))
		return -1;
	for (; isdigit((unsigned char)*p); p++)
		if ((m = m * 10 + (*p - '0')) > HB_REGEX_MAX_REPEAT)
			return -2;
	if (*p == ',') {
		p++;
		if (isdigit((unsigned char)*p))
			n = 0;
		for (; isdigit((unsigned char)*p); p++)
			if ((n = n * 10 + (*p - '0')) > HB_REGEX_MAX_REPEAT)
				return -2;
	}
	if (*p != '}')
		return -1;
	*end = p + 1;
	return n > m ? n : m;
}

int regex_check(const char *pattern, const char **why)
{
	/* per open group: the cost so far and that of its last atom */
	unsigned long sum[HB_REGEX_MAX_DEPTH + 1], last[HB_REGEX_MAX_DEPTH + 1];
	bool repeated = false; /* the last thing read was a repetition */
	int depth = 0;

	if (strlen(pattern) > HB_REGEX_MAX_LEN) {
		*why = "longer than " STR(HB_REGEX_MAX_LEN) " bytes";
		return -EINVAL;
	}
	sum[0] = last[0] = 0;
	for (const char *p = pattern; *p;) {
		const char *next = p + 1;
		bool repeats = *p == '*' || *p == '+' || *p == '?' ||
			       (*p == '{' && bound_count(p, &next) != -1);
		long count;

		next = p + 1;
		if (repeats && repeated) {
			*why = "a repetition of a repetition (a*+, a+*, a{2}?)";
			return -EINVAL;
		}
		repeated = repeats;
		switch (*p) {
		case '\\':
			if (p[1] >= '1' && p[1] <= '9') {
				*why = "a back-reference (\\1 .. \\9)";
				return -EINVAL;
			}
			next = p[1] ? p + 2 : p + 1;
			last[depth] = 1;
			sum[depth] += 1;
			break;
		case '[':
			next = bracket_end(p);
			if (!next)
				return 0; /* unbalanced: regcomp says so */
			last[depth] = 1;
			sum[depth] += 1;
			break;
		case '(':
			if (depth == HB_REGEX_MAX_DEPTH) {
				*why = "nested deeper than " STR(HB_REGEX_MAX_DEPTH) " groups";
				return -EINVAL;
			}
			depth++;
			sum[depth] = last[depth] = 0;
			break;
		case ')':
			if (depth == 0) {
				last[0] = 1;
				sum[0] += 1;
				break;
			}
			count = (long)(sum[depth] ? sum[depth] : 1);
			depth--;
			last[depth] = (unsigned long)count;
			sum[depth] += (unsigned long)count;
			break;
		case '{':
			count = bound_count(p, &next);
			if (count == -2) {
				*why = "a repetition bound over " STR(HB_REGEX_MAX_REPEAT);
				return -EINVAL;
			}
			if (count < 0) {
				next = p + 1;
				last[depth] = 1;
				sum[depth] += 1;
				break;
			}
			/* the atom copied count times in all: count - 1 more */
			sum[depth] += last[depth] * (unsigned long)(count ? count - 1 : 0);
			last[depth] *= (unsigned long)(count ? count : 1);
			break;
		case '+':
			/* regcomp() makes a+ into aa*: a copy, doubling a++ */
			sum[depth] += last[depth];
			last[depth] *= 2;
			break;
		case '*': case '?': case '|': case '^': case '$':
			break;
		default:
			last[depth] = 1;
			sum[depth] += 1;
			break;
		}
		/* each term is at most MAX_COST * MAX_REPEAT: no wrap before this */
		if (sum[depth] > HB_REGEX_MAX_COST || last[depth] > HB_REGEX_MAX_COST) {
			*why = "repetitions that expand past " STR(HB_REGEX_MAX_COST) " atoms";
			return -EINVAL;
		}
		p = next;
	}
	return 0;
}

int regex_compile(regex_t *re, const char *pattern, struct strbuf *err)
{
	const char *why;
	char buf[256];
	int e;

	if (regex_check(pattern, &why) < 0) {
		strbuf_addf(err, "too complex (%s; docs/formats.md, \"Regular expressions\")", why);
		return -EINVAL;
	}
	e = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (e) {
		regerror(e, re, buf, sizeof(buf));
		strbuf_addstr(err, buf);
		return -EINVAL;
	}
	return 0;
}
