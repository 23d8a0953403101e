# Fork mode: a server started with PERL_HASH_SEED and PERL_PERTURB_KEYS
# gives its scripts that hash order, as the in-process modes do (the
# zygote is a perl of its own): a script that prints a hash unsorted
# prints what `PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 perl script` prints.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'keys.cgi', <<'CGI');
my %h = map { ("key$_" => 1) } 1 .. 40;
print "Content-Type: text/plain\n\n", join(',', keys %h), "\n";
CGI
my $want = do {
    local @ENV{qw(PERL_HASH_SEED PERL_PERTURB_KEYS)} = (0, 0);
    `$^X $root/keys.cgi` =~ s/\A.*?\n\n//sr;
};
like $want, qr/\Akey\d+(?:,key\d+){39}\n\z/, 'the reference: forty keys';

my $server = do {
    local @ENV{qw(PERL_HASH_SEED PERL_PERTURB_KEYS)} = (0, 0);
    start_server(no_app => 1, workers => 2, args => ['--cgi-bin', $root, '--cgi-mode', 'fork']);
};
is get_script($server, "keys.cgi?$_")->{body}, $want, "fork mode, request $_: the server's hash seed" for 1 .. 4;
is $server->stop, 0, 'the server stops cleanly';
done_testing;
