# #!perl -T scripts in every mode, over real sockets, against the same
# scripts run as plain CGI (Kamado::Test::CGI: perl started with the #!
# switches, as Apache's mod_cgi starts it): a script that untaints PATH
# itself can pipe, use backticks, system and exec (the fixtures
# t/cgi/e10-taint-*.cgi), and what plain CGI's taint mode rejects (a
# tainted PATH, a tainted command) is still rejected, with perl's message
# in the log. Each request twice: the second finds the script compiled.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Cwd ();
use Kamado::Test qw(start_server read_response);
use Kamado::Test::CGI qw(run_cgi parse_cgi_output);

my $root = Cwd::realpath('t/cgi');
my @cases = grep { $_->{script} =~ /\Ae10-taint-/ } do "$root/cases.pl" or die "t/cgi/cases.pl: $@";
is scalar @cases, 5, 'the taint fixtures';

for my $mode (qw(exec fork registry perlrun)) {
    my $server = start_server(no_app => 1, workers => 1,
        args => ['--cgi-bin', "/cgi-bin=$root", '--cgi-mode', $mode]);
    for my $case (@cases) {
        for my $req (($case->{requests}->@*) x 2) {
            my $name = "$mode: $case->{script}?$req->{query}";
            my $want = run_cgi(script => "$root/$case->{script}", query => $req->{query},
                script_name => "/cgi-bin/$case->{script}", env => { PATH => $ENV{PATH} });
            my $ref = parse_cgi_output($want->{stdout}, script => $want->{script});
            my $got = read_response($server->send_get("/cgi-bin/$case->{script}?$req->{query}"), timeout => 15);
            is $got && "$got->{status} $got->{body}", "$ref->{status} $ref->{body}", "$name: as plain CGI";
            # (the reason is perl's: what plain CGI logs)
            my ($why) = $want->{stderr} =~ /\A(Insecure [^\n]* while running with -T switch)/ or next;
            # (each line of its STDERR with its path and the request id)
            like $server->log, qr/^\S*\Q$case->{script}\E \[[^\]]+\]: \Q$why\E at \S*\Q$case->{script}\E line \d+/m,
                "$name: rejected as plain CGI: $why";
        }
    }
    is $server->stop, 0, "$mode: the server stops cleanly";
}
done_testing;
