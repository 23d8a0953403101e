# A CGI script that prints its page, closes STDOUT and STDERR and lingers
# (a #!/bin/sh one, which fork mode runs as exec mode does, and a perl
# one): the response completes when the output closes, and the worker
# (one only) answers the next request at once instead of waiting for the
# script. Past --cgi-timeout the lingering script's process group is
# stopped, with no further request needed.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Time::HiRes ();
use Kamado::Test qw(start_server read_response eventually);
use Kamado::Test::HTTP qw(wait_for_file slurp);
use Kamado::Test::Procs qw(running put_script);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";
my $root = File::Temp::tempdir(CLEANUP => 1);
# (each writes its pid to pid.QUERY once its output is closed)
put_script($root, 'linger.cgi', <<'CGI');
#!/bin/sh
echo "Content-Type: text/plain"
echo
echo "page"
exec >&- 2>&-
echo $$ > "pid.$QUERY_STRING.tmp"
mv "pid.$QUERY_STRING.tmp" "pid.$QUERY_STRING"
sleep 60
CGI
put_script($root, 'linger-perl.cgi', <<'CGI');
#!/usr/bin/perl
print "Content-Type: text/plain\n\npage\n";
close STDOUT; close STDERR;
open F, ">pid.$ENV{QUERY_STRING}.tmp"; print F "$$\n"; close F;
rename "pid.$ENV{QUERY_STRING}.tmp", "pid.$ENV{QUERY_STRING}";
sleep 60;
CGI
put_script($root, 'quick.cgi', "#!/usr/bin/perl\nprint qq{Content-Type: text/plain\\n\\nquick\\n};\n");

my @left;
for my $mode (qw(fork exec)) {
    my $server = start_server(
        no_app => 1, workers => 1,
        args => ['--cgi-bin', $root, '--cgi-mode', $mode, '--cgi-timeout', 5]
    );
    for my $script (qw(linger.cgi linger-perl.cgi)) {
        my $q = "$mode-$script";
        my $name = "$mode: $script";
        my $t0 = Time::HiRes::time();
        my $r = read_response($server->send_get("/cgi-bin/$script?$q"), timeout => 30);
        is $r && "$r->{status} $r->{body}", "200 page\n", "$name: its page";
        cmp_ok Time::HiRes::time() - $t0, '<', 3.5, "$name: answered when its output closed";
        $t0 = Time::HiRes::time();
        $r = read_response($server->send_get('/cgi-bin/quick.cgi'), timeout => 30);
        is $r && $r->{body}, "quick\n", "$name: the next request is answered";
        cmp_ok Time::HiRes::time() - $t0, '<', 3.5, "$name: at once, the script still running";
        ok wait_for_file("$root/pid.$q", 30), "$name: it ran" or next;
        my ($pid) = slurp("$root/pid.$q") =~ /(\d+)/;
        ok running($pid), "$name: it lingers";
        # past its bound, with no request meanwhile
        ok eventually(sub { !running($pid) }, 30), "$name: stopped past --cgi-timeout" or push @left, $pid;
    }
    is $server->stop, 0, "$mode: the server stops cleanly";
}
kill KILL => grep { running($_) } @left;
done_testing;
