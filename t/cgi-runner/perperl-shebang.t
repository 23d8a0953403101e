# Scripts written for PersistentPerl or SpeedyCGI start with
# #!/usr/bin/perperl or #!/usr/bin/speedy, perl switches before a "--"
# and their own options after it: they run as perl scripts, with the
# perl switches, in every mode; the options after "--" are not perl's
# (they neither reach perl nor send the script to another mode).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my %scripts = (
    'perperl.cgi' => '#!/usr/bin/perperl -w -- -t300 -r5',
    'speedy.cgi'  => '#!/usr/local/bin/speedy -w -- -M2',
    'bare.cgi'    => '#!/usr/bin/speedy',
);
put_script($root, $_, <<"CGI") for keys %scripts;
$scripts{$_}
print "Content-Type: text/plain\\n\\n";
print "w=", (\$^W ? 1 : 0), " pid=\$\$ args=", scalar(\@ARGV), "\\n";
CGI

for my $mode (qw(registry perlrun fork exec)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $name (sort keys %scripts) {
        my $r = get_script($server, $name);
        my $w = $name eq 'bare.cgi' ? 0 : 1;
        like "$r->{status} $r->{body}", qr/^200 w=$w pid=(\d+) args=0$/, "$mode $name: runs as perl, with its perl switches";
        my ($pid) = $r->{body} =~ /pid=(\d+)/;
        my $in_worker = grep { $_ == ($pid // 0) } $server->workers;
        if ($mode eq 'registry' || $mode eq 'perlrun') {
            ok $in_worker, "$mode $name: in the worker (its mode is kept)";
        } else {
            ok !$in_worker, "$mode $name: in a process of its own";
        }
    }
    is $server->stop, 0, "$mode: TERM: exit 0";
    unlike $server->log, qr/\.cgi/, "$mode: nothing about the scripts in the log";
}
done_testing;
