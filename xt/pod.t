# The POD: well-formed in every module and script, a NAME in every module,
# and every public function of the public modules (those a user calls,
# subclasses or mounts) documented. The others are Kamado's own parts:
# each says what it is for, its functions are described in prose.
use strict;
use warnings;
use Test::More;
use Test::Pod 1.41;
use Test::Pod::Coverage 1.08;
use File::Find ();
use lib 'blib/lib', 'blib/arch';

my @PUBLIC = qw(Kamado Kamado::CGI Kamado::ErrorResponse Kamado::Loop Plack::Handler::Kamado
    Plack::Middleware::Kamado::DBI PersistentPerl CGI::SpeedyCGI);

my @files = (all_pod_files('lib'), 'script/kamado');
pod_file_ok($_) for @files;

my @nameless;
File::Find::find(
    {
        no_chdir => 1,
        wanted => sub {
            return unless /\.pm\z/;
            open my $fh, '<', $_ or die "$_: $!";
            my $text = do { local $/; <$fh> };
            push @nameless, $_ unless $text =~ /^=head1 NAME\s*\n\s*\n\S+ - \S/m;
        }
    },
    'lib'
);
is_deeply \@nameless, [], 'every module has a NAME line (Module - what it is)';

for my $module (@PUBLIC) {
    # Plack's own methods of a middleware (call, prepare_app) are Plack's to document
    my @trust = $module =~ /^Plack::Middleware::/ ? (trustme => [qr/\A(?:call|prepare_app)\z/]) : ();
    pod_coverage_ok($module, {@trust}, "$module: every public function documented");
}
done_testing;
