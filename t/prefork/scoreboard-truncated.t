# The published --scoreboard file truncated to nothing, then replaced by
# another file, while the server serves (with autoscaling, so the master
# reads its scoreboard four times a second): no process of the server
# dies, every request is answered, and the file is written whole again.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server read_response eventually);

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $dir = File::Temp->newdir;
my $file = "$dir/scoreboard";
my $server = start_server(
    args => ['--min-workers', 2, '--max-workers', 2, '--scoreboard', $file],
    app  => 'sub { [200, ["Content-Type" => "text/plain"], [$$]] }');
ok eventually(sub { $server->workers == 2 }), 'two workers';
my @generations = $server->generations;
my @workers = sort $server->workers;
my $size = -s $file;

sub serves {
    my ($what) = @_;
    my $ok = 0;
    for (1 .. 20) {
        my $res = read_response($server->send_get('/'));
        $ok++ if $res && $res->{status} == 200;
    }
    is $ok, 20, "20 requests answered $what";
}
serves('before');

truncate $file, 0 or die $!;
serves('after the file was truncated');
ok eventually(sub { (-s $file // 0) == $size }), 'the file is written whole again';

open my $fh, '>', "$file.new" or die $!;
print $fh 'x' x 100;
close $fh;
rename "$file.new", $file or die $!;
serves('after the file was replaced');

is_deeply [$server->generations], \@generations, 'the same generation';
is_deeply [sort $server->workers], \@workers, 'the same workers';
unlike $server->log, qr/exited with|signal/, 'no process of the server died';
is $server->stop, 0, 'the server stops cleanly';
done_testing;
