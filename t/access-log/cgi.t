# A CGI script under --cgi-bin is logged like any request: its status
# (a Status: header), its body bytes, its request line; in each CGI mode
# the worker serves it from (registry runs it in the worker, fork in a
# child of its zygote).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::AccessLog qw(wait_lines parse_combined);

my $dir = File::Temp->newdir;
mkdir "$dir/cgi" or die $!;
open my $fh, '>', "$dir/cgi/hello.cgi" or die $!;
print $fh <<'CGI';
#!/usr/bin/perl
print "Status: 202 Accepted\r\nContent-Type: text/plain\r\n\r\n";
print "hello from $ENV{QUERY_STRING}\n";
CGI
close $fh;
chmod 0755, "$dir/cgi/hello.cgi" or die $!;

for my $mode (qw(registry fork)) {
    my $log = "$dir/access-$mode.log";
    my $server = start_server(no_app => 1,
        args => ['--access-log', $log, '--cgi-bin', "$dir/cgi", '--cgi-mode', $mode]);
    my $res = read_response($server->send_get('/cgi-bin/hello.cgi?x=1'));
    is $res && $res->{status}, 202, "$mode: the script answered";
    my @lines = wait_lines($log, 1);
    is scalar(@lines), 1, "$mode: one line" or diag @lines;
    my $f = parse_combined($lines[0] // '');
    is $f && $f->{request}, 'GET /cgi-bin/hello.cgi?x=1 HTTP/1.1', "$mode: its request line";
    is $f && $f->{status}, 202, "$mode: the script's status";
    is $f && $f->{bytes}, length($res->{body}), "$mode: its body bytes (" . length($res->{body}) . ')';
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;
