# TERM while a CGI script runs, in every mode: the worker's signal
# interrupts its wait for the script's output, which must not be taken for
# --cgi-timeout: the script finishes, the client gets its whole answer,
# the server exits 0.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::HTTP qw(wait_for_file);

my $root = File::Temp::tempdir(CLEANUP => 1);
open my $fh, '>', "$root/slow.cgi" or die;
print $fh <<'CGI';
open(F, ">$ENV{QUERY_STRING}") and close(F);
sleep 2;
print "Content-Type: text/plain\n\ndone after 2 s\n";
CGI
close $fh;
chmod 0755, "$root/slow.cgi" or die;
for my $mode (qw(fork exec registry perlrun)) {
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $started = "$root/started-$mode";
    my $c = $server->send_get("/cgi-bin/slow.cgi?$started");
    ok wait_for_file($started), "$mode: the script runs";
    kill TERM => $server->pid;
    my $r = read_response($c, timeout => 10);
    is $r && "$r->{status} $r->{body}", "200 done after 2 s\n", "$mode: it finishes and is answered";
    is $server->wait_exit(10), 0, "$mode: then the server exits 0";
}
done_testing;
