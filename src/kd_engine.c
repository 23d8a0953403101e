/* kd_engine.c: the engine's parts, the one list of them. Kamado.xs, the
 * C tests (t/c/) and the fuzz harnesses (fuzz/) include this file, so
 * each is one translation unit with the whole engine and the compiler
 * inlines across it.
 *
 * Plain C99 + Linux, no perl.h. The layers, each only using those above
 * it in this list:
 *   src/sys/    the clock, bounded waits, temporary files, descriptor passing,
 *               the worker template's fork loop
 *   src/proto/  protocols' bytes parsed and built: requests and chunked
 *               bodies, the response head and body framing, PROXY
 *               headers, HTTP dates, CGI output heads, access-log lines,
 *               and MariaDB's session reset (the one part here that does
 *               its own I/O, on the driver's socket)
 *   src/board/  the scoreboard shared by a server's processes
 *   src/loop/   the event loop, one module (see src/loop/kd_conn.h)
 */
#ifndef KD_ENGINE_C
#define KD_ENGINE_C

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "sys/kd_sys.c"
#include "sys/kd_fdpass.c"
#include "sys/kd_spawn.c"

#include "proto/kd_parser.c"
#include "proto/kd_chunked.c"
#include "proto/kd_frame.c"
#include "proto/kd_head.c"
#include "proto/kd_proxy.c"
#include "proto/kd_date.c"
#include "proto/kd_cgi_head.c"
#include "proto/kd_logfmt.c"
#include "proto/kd_myreset.c"

#include "board/kd_scoreboard.c"

#include "loop/kd_loop.c"
#include "loop/kd_bufs.c"
#include "loop/kd_intake.c"
#include "loop/kd_answer.c"
#include "loop/kd_keepalive.c"
#include "loop/kd_pools.c"
#include "loop/kd_body.c"
#include "loop/kd_write.c"
#include "loop/kd_stream.c"
#include "loop/kd_lastwords.c"

#endif
