# A $SIG{__WARN__} a script sets while it compiles (a BEGIN block, use
# CGI::Carp) is its own in registry and perlrun, as __DIE__ is: its
# warnings go through it on every run, as under CGI (issue 24, item 6),
# and it is not another script's.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'stamped.cgi', "#!/usr/bin/perl\nBEGIN { \$SIG{__WARN__} = sub { print STDERR 'STAMPED: ', \@_ } }\n"
    . "warn qq{hello \$ENV{QUERY_STRING}\\n};\nprint qq{Content-Type: text/plain\\n\\nok\\n};\n");
# under CGI a named sub sees the file's variables: perl's "will not stay
# shared" is the wrapper's doing, never logged, through the script's own
# handler neither
put_script($root, 'carp.cgi', "#!/usr/bin/perl -w\nuse CGI::Carp;\nmy \$count = 0;\nsub bump { ++\$count }\n"
    . "print qq{Content-Type: text/plain\\n\\n}, bump(), qq{\\n};\n");
put_script($root, 'plain.cgi', "#!/usr/bin/perl\nwarn qq{plain \$ENV{QUERY_STRING}\\n};\nprint qq{Content-Type: text/plain\\n\\nok\\n};\n");
for my $mode (qw(registry perlrun)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $n (1, 2) {
        is get_script($server, "stamped.cgi?$mode$n")->{body}, "ok\n", "$mode: the script runs ($n)";
        wait_until { $server->log =~ /hello $mode$n/ } "$mode: its warning logged ($n)";
        like $server->log, qr/^\Q$root\E\/stamped\.cgi \[\S+\]: STAMPED: hello $mode$n$/m,
            "$mode: through its own __WARN__ handler ($n)";
    }
    is get_script($server, 'carp.cgi')->{body}, "1\n", "$mode: a CGI::Carp script whose sub uses a file-scoped variable";
    is get_script($server, 'carp.cgi')->{body}, "1\n", "$mode: ... again";
    unlike $server->log, qr/will not stay shared/, "$mode: no \"will not stay shared\" in the log";
    is get_script($server, "plain.cgi?$mode")->{body}, "ok\n", "$mode: another script";
    wait_until { $server->log =~ /plain $mode/ } "$mode: its warning logged";
    unlike $server->log, qr/STAMPED: plain/, "$mode: not through the first script's handler";
    is $server->stop, 0, "$mode: stopped";
}
done_testing;
