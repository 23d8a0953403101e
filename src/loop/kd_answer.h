/* kd_answer.h: the answers the loop gives itself (kd_answer.c), as the
 * event loop uses them. kd_conn_error and kd_loop_log_answers, which
 * start them and keep their records, are in kd_conn.h. */
#ifndef KD_ANSWER_H
#define KD_ANSWER_H

#include "kd_conn_int.h"

/* Reads and drops input on a connection lingering after kd_conn_error;
 * closes it at EOF or on an error. */
void kd_linger_read(kd_loop *l, kd_conn *c);

#endif
