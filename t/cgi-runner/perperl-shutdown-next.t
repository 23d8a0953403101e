# PersistentPerl's shutdown_next_time and shutdown_now. In registry and
# perlrun mode the worker exits once the response is sent and a new one
# replaces it; shutdown_next_time lets the script finish, shutdown_now
# ends it where it is called (as exit would: what it printed is the
# response). In fork mode each request's process ends anyway: the worker
# stays.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'next.cgi', <<'CGI');
#!/usr/bin/perl
use PersistentPerl;
print "Content-Type: text/plain\n\nbefore\n";
PersistentPerl->new->shutdown_next_time;
print "after\n";
CGI
put_script($root, 'now.cgi', <<'CGI');
#!/usr/bin/perl
use PersistentPerl;
print "Content-Type: text/plain\n\nbefore\n";
eval { PersistentPerl->new->shutdown_now };
print "after\n";
CGI
put_script($root, 'pid.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\n\$\$};\n");

for my $mode (qw(registry perlrun fork)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $case (['next.cgi', "before\nafter\n"], ['now.cgi', "before\n"]) {
        my ($script, $body) = @$case;
        # (the worker, once it has answered: it may not be forked yet when
        # the server says it accepts)
        get_script($server, 'pid.cgi');
        my ($worker) = $server->workers;
        my $r = get_script($server, $script);
        is "$r->{status} $r->{body}", "200 $body", "$mode $script: the response";
        if ($mode eq 'fork') {
            get_script($server, 'pid.cgi');
            is_deeply [$server->workers], [$worker], "$mode $script: the worker stays";
        } else {
            wait_until { !kill 0, $worker } "$mode $script: the worker exits";
            like get_script($server, 'pid.cgi')->{body}, qr/^\d+\z/, "$mode $script: a new worker serves";
        }
    }
    is $server->stop, 0, "$mode: TERM: exit 0";
    unlike $server->log, qr/died|\.cgi:/, "$mode: nothing wrong in the log";
}
done_testing;
