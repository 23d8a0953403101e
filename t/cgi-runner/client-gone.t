# A client that goes away while a CGI script streams to it: the script's
# process group is stopped (TERM, KILL after a grace: this one ignores
# TERM and never stops writing), and the worker (one only) serves the
# next request instead of relaying to nobody for ever. Fork and exec.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::HTTP qw(wait_for_file slurp);
use Kamado::Test::Procs qw(running put_script);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";
my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'firehose.cgi', <<'CGI');
#!/usr/bin/perl
$SIG{TERM} = 'IGNORE';
$| = 1;
print "Content-Type: text/plain\n\n";
open F, ">pid.$ENV{QUERY_STRING}.tmp"; print F "$$\n"; close F;
rename "pid.$ENV{QUERY_STRING}.tmp", "pid.$ENV{QUERY_STRING}";
while (1) { print "x" x 4096, "\n"; select undef, undef, undef, 0.005 }
CGI
put_script($root, 'quick.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nquick\\n};\n");
my @left;
for my $mode (qw(fork exec)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $c = $server->send_get("/cgi-bin/firehose.cgi?$mode");
    ok wait_for_file("$root/pid.$mode", 30), "$mode: the script streams" or next;
    sysread $c, my $buf, 65536;
    close $c;
    my ($pid) = slurp("$root/pid.$mode") =~ /(\d+)/;
    my $r = read_response($server->send_get('/cgi-bin/quick.cgi'), timeout => 30);
    is $r && $r->{body}, "quick\n", "$mode: the worker serves the next request";
    ok eventually(sub { !running($pid) }, 15), "$mode: the script is stopped" or push @left, $pid;
    is $server->stop, 0, "$mode: the server stops cleanly";
}
kill KILL => grep { running($_) } @left;
done_testing;
